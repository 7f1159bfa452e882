// What ingestion wrote: nodes per label and relationships per type.
CALL () {
  MATCH (n:Document {workspace: $workspace}) RETURN 'node' AS kind, 'Document' AS name, count(n) AS n
  UNION ALL
  MATCH (n:Chunk {workspace: $workspace}) RETURN 'node' AS kind, 'Chunk' AS name, count(n) AS n
  UNION ALL
  MATCH (n:Date {workspace: $workspace}) RETURN 'node' AS kind, 'Date' AS name, count(n) AS n
  UNION ALL
  MATCH (e:Entity {workspace: $workspace}) RETURN 'entity' AS kind, e.label AS name, count(e) AS n
  UNION ALL
  MATCH (a)-[r]->() WHERE a.workspace = $workspace RETURN 'relationship' AS kind, type(r) AS name, count(r) AS n
}
RETURN kind, name, n
ORDER BY kind, n DESC
