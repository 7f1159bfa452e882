// The relationships from the given entities to other entities, as (source key, type, target key): what the graph
// holds for the entities a batch is about to write relationships from (ingest/known_relations.py).
UNWIND $keys AS key
MATCH (a:Entity {workspace: $workspace, key: key})-[r]->(b:Entity {workspace: $workspace})
RETURN a.key AS source, type(r) AS type, b.key AS target
