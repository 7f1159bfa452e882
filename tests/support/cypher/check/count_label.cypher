// Nodes with one label, counted independently of GET /v1/graph/stats.
MATCH (n:$($label))
RETURN count(n) AS n
