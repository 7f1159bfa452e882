// Every workspace that holds documents, chunks or entities, with how many of each (`graphwire workspace list`):
// reads every workspace, through the workspace indexes.
CALL () {
  MATCH (d:Document) WHERE d.workspace IS NOT NULL RETURN d.workspace AS workspace, 'documents' AS kind, count(*) AS n
  UNION ALL
  MATCH (c:Chunk) WHERE c.workspace IS NOT NULL RETURN c.workspace AS workspace, 'chunks' AS kind, count(*) AS n
  UNION ALL
  MATCH (e:Entity) WHERE e.workspace IS NOT NULL RETURN e.workspace AS workspace, 'entities' AS kind, count(*) AS n
}
RETURN workspace, collect([kind, n]) AS counts
ORDER BY workspace
