// Every workspace of the store (`graphwire workspace list`, GET /v1/workspaces): those in the registry and those
// holding documents, chunks or entities (written before the registry), with how many of each; reads every
// workspace, through the workspace indexes.
CALL () {
  MATCH (d:Document) WHERE d.workspace IS NOT NULL RETURN d.workspace AS workspace, 'documents' AS kind, count(*) AS n
  UNION ALL
  MATCH (c:Chunk) WHERE c.workspace IS NOT NULL RETURN c.workspace AS workspace, 'chunks' AS kind, count(*) AS n
  UNION ALL
  MATCH (e:Entity) WHERE e.workspace IS NOT NULL RETURN e.workspace AS workspace, 'entities' AS kind, count(*) AS n
  UNION ALL
  MATCH (w:Workspace) RETURN w.workspace AS workspace, 'registered' AS kind, 1 AS n
}
WITH workspace, collect([kind, n]) AS counts
OPTIONAL MATCH (w:Workspace {workspace: workspace})
RETURN workspace, counts, toString(w.created_at) AS created_at, w.created_by AS created_by,
       toString(w.deleting) AS deleting_since
ORDER BY workspace
