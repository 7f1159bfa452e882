// The Date layer: one node per day, PUBLISHED_ON from documents, NEXT_DAY between consecutive days that both exist.
UNWIND $rows AS row
MATCH (d:Document {id: row.id})
MERGE (t:Date {date: row.date})
ON CREATE SET t.year = row.year, t.month = row.month, t.day = row.day
MERGE (d)-[:PUBLISHED_ON]->(t)
WITH DISTINCT t, row
OPTIONAL MATCH (prev:Date {date: row.prev})
OPTIONAL MATCH (next:Date {date: row.next})
FOREACH (_ IN CASE WHEN prev IS NULL THEN [] ELSE [1] END | MERGE (prev)-[:NEXT_DAY]->(t))
FOREACH (_ IN CASE WHEN next IS NULL THEN [] ELSE [1] END | MERGE (t)-[:NEXT_DAY]->(next))
