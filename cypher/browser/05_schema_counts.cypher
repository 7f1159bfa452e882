// What ingestion wrote: nodes per label and relationships per type.
CALL () {
  MATCH (n:Document) RETURN 'node' AS kind, 'Document' AS name, count(n) AS n
  UNION ALL
  MATCH (n:Chunk) RETURN 'node' AS kind, 'Chunk' AS name, count(n) AS n
  UNION ALL
  MATCH (n:Date) RETURN 'node' AS kind, 'Date' AS name, count(n) AS n
  UNION ALL
  MATCH (e:Entity) RETURN 'entity' AS kind, e.label AS name, count(e) AS n
  UNION ALL
  MATCH ()-[r]->() RETURN 'relationship' AS kind, type(r) AS name, count(r) AS n
}
RETURN kind, name, n
ORDER BY kind, n DESC
