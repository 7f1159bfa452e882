// Entities after $after in key order, a page of $limit, each with its outgoing relationships to exported nodes
// (ingest/exchange/reader.py). An end is named by its kind (Entity, Document, Chunk, Date), label and key.
MATCH (n:Entity {workspace: $workspace})
WHERE n.key > $after
WITH n
ORDER BY n.key
LIMIT $limit
OPTIONAL MATCH (n)-[r]->(b)
WHERE b:Entity OR b:Document OR b:Chunk OR b:Date
WITH n, r, b,
     CASE WHEN b:Entity THEN 'Entity' WHEN b:Document THEN 'Document' WHEN b:Chunk THEN 'Chunk' ELSE 'Date' END AS kind
WITH n, collect(CASE WHEN r IS NULL THEN null ELSE {type: type(r), end_kind: kind,
                     end_label: CASE kind WHEN 'Entity' THEN b.label ELSE kind END,
                     end_key: CASE kind WHEN 'Entity' THEN b.key WHEN 'Date' THEN b.date ELSE b.id END,
                     props: properties(r)} END) AS rels
RETURN n.key AS key, labels(n) AS labels, properties(n) AS props, rels
ORDER BY key
