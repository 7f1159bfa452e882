CREATE INDEX bench_node_id IF NOT EXISTS FOR (n:BenchNode) ON (n.id)
