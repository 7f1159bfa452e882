UNWIND $rows AS row
MATCH (d:Document {id: row.id})
MATCH (p:Entity {key: row.publication})
MERGE (d)-[:REPORTED_BY]->(p)
