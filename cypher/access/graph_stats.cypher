// Node counts per label and relationship counts per type of what a restricted reader may read (GET /v1/graph/stats for
// a caller some documents are closed to; $lists: the access lists it may read, and documents and chunks without a list
// are readable; null: everything, for a workspace that shares the store with others): its documents and chunks, the
// days those documents were published on, the entities a readable chunk mentions, a relationship with a readable
// supporting chunk joins or a readable document is reported by (what its retrieval scope holds, retrieval/scope.py),
// those relationships, and the structure around them (the readable documents' relationships, the readable chunks'
// MENTIONS). It reads every readable document, chunk and mention and each relationship's chunks up to its first
// readable one: a scan, unlike the whole graph's counts from the count store.
CALL () {
  MATCH (d:Document {workspace: $workspace}) WHERE $lists IS NULL OR d.access IS NULL OR d.access IN $lists
  OPTIONAL MATCH (d)-[x]->(n)
  RETURN count(DISTINCT d) AS documents, size(collect(DISTINCT CASE WHEN n:Date THEN n END)) AS days,
         collect(DISTINCT CASE WHEN n:Entity THEN n END) AS publishers, collect(type(x)) AS document_types
}
CALL () {
  MATCH (c:Chunk {workspace: $workspace}) WHERE $lists IS NULL OR c.access IS NULL OR c.access IN $lists
  RETURN count(c) AS chunks
}
CALL () {
  MATCH (c:Chunk {workspace: $workspace})-[m:MENTIONS]->(e:Entity) WHERE $lists IS NULL OR c.access IS NULL OR c.access IN $lists
  RETURN count(m) AS mentions, collect(DISTINCT e) AS mentioned
}
CALL () {
  MATCH (:Entity {workspace: $workspace})-[r]->(:Entity)
  WHERE r.chunk_ids IS NOT NULL
    AND any(id IN r.chunk_ids WHERE EXISTS { MATCH (x:Chunk {workspace: $workspace, id: id}) WHERE $lists IS NULL OR x.access IS NULL OR x.access IN $lists })
  RETURN collect(r) AS relationships
}
CALL (publishers, mentioned, relationships) {
  UNWIND publishers + mentioned + [r IN relationships | startNode(r)] + [r IN relationships | endNode(r)] AS e
  WITH DISTINCT e
  UNWIND labels(e) AS label
  WITH label, count(*) AS n
  RETURN collect({kind: 'label', name: label, count: n}) AS entity_rows
}
WITH [{kind: 'label', name: 'Document', count: documents}, {kind: 'label', name: 'Chunk', count: chunks},
      {kind: 'label', name: 'Date', count: days}, {kind: 'type', name: 'MENTIONS', count: mentions}]
     + entity_rows
     + [t IN document_types + [r IN relationships | type(r)] | {kind: 'type', name: t, count: 1}] AS rows
UNWIND rows AS row
WITH row.kind AS kind, row.name AS name, sum(row.count) AS count
WHERE count > 0
RETURN kind, name, count
ORDER BY kind, name
