UNWIND $rows AS row
MATCH (a:BenchNode {id: row.id}), (b:BenchNode {id: row.link})
CREATE (a)-[:LINKS_TO {weight: row.weight}]->(b)
