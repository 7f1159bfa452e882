// Every relationship between two entities, as (source key, type, target key): what the graph holds before a run.
MATCH (a:Entity)-[r]->(b:Entity)
RETURN a.key AS source, type(r) AS type, b.key AS target
