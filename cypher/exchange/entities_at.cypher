// The entities of $keys with their relationships to other entities of $keys: a neighbourhood export
// (ingest/exchange/reader.py), same columns as entities_page.
UNWIND $keys AS wanted
MATCH (n:Entity {workspace: $workspace, key: wanted})
OPTIONAL MATCH (n)-[r]->(b:Entity {workspace: $workspace})
WHERE b.key IN $keys
WITH n, collect(CASE WHEN r IS NULL THEN null ELSE {type: type(r), end_kind: 'Entity', end_label: b.label,
                     end_key: b.key, props: properties(r)} END) AS rels
RETURN n.key AS key, labels(n) AS labels, properties(n) AS props, rels
ORDER BY key
