// Every MENTIONS edge with what the entity layer records on it (tests/integration/test_entity_layer.py).
MATCH (c:Chunk {workspace: $workspace})-[m:MENTIONS]->(e:Entity {workspace: $workspace})
RETURN c.title AS title, c.id AS chunk_id, e.name AS name, e.key AS key, coalesce(e.aliases, []) AS aliases,
       coalesce(m.title, false) AS is_title, coalesce(m.linked, false) AS linked, m.sentences AS sentences
ORDER BY title, name
