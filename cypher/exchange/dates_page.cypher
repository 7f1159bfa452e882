// Days after $after in key order, a page of $limit, each with its outgoing relationships to exported nodes
// (ingest/exchange/reader.py). An end is named by its kind (Entity, Document, Chunk, Date), label and key.
MATCH (n:Date {workspace: $workspace})
WHERE n.date > $after
WITH n
ORDER BY n.date
LIMIT $limit
OPTIONAL MATCH (n)-[r]->(b)
WHERE b:Entity OR b:Document OR b:Chunk OR b:Date
WITH n, r, b,
     CASE WHEN b:Entity THEN 'Entity' WHEN b:Document THEN 'Document' WHEN b:Chunk THEN 'Chunk' ELSE 'Date' END AS kind
WITH n, collect(CASE WHEN r IS NULL THEN null ELSE {type: type(r), end_kind: kind,
                     end_label: CASE kind WHEN 'Entity' THEN b.label ELSE kind END,
                     end_key: CASE kind WHEN 'Entity' THEN b.key WHEN 'Date' THEN b.date ELSE b.id END,
                     props: properties(r)} END) AS rels
RETURN n.date AS key, labels(n) AS labels, properties(n) AS props, rels
ORDER BY key
