// Every (source label, type, target label) pattern in the graph between entities, with counts: compare with the schema.
MATCH (a:Entity {workspace: $workspace})-[r]->(b:Entity {workspace: $workspace})
RETURN a.label AS source, type(r) AS type, b.label AS target, count(r) AS n
ORDER BY n DESC
