// The Date layer: one node per distinct publication day, NEXT_DAY between consecutive days that both exist.
// Runs before the documents of a batch, which link to these days.
UNWIND $rows AS row
MERGE (t:Date {workspace: $workspace, date: row.date})
ON CREATE SET t.year = row.year, t.month = row.month, t.day = row.day
WITH t, row
OPTIONAL MATCH (prev:Date {workspace: $workspace, date: row.prev})
OPTIONAL MATCH (next:Date {workspace: $workspace, date: row.next})
FOREACH (_ IN CASE WHEN prev IS NULL THEN [] ELSE [1] END | MERGE (prev)-[:NEXT_DAY]->(t))
FOREACH (_ IN CASE WHEN next IS NULL THEN [] ELSE [1] END | MERGE (t)-[:NEXT_DAY]->(next))
