// Relationships per type in the workspace, by a scan of its nodes' outgoing relationships (a store shared with other
// workspaces: the count store counts them all). Every relationship starts at a document, chunk, entity or day.
CALL () {
  MATCH (d:Document {workspace: $workspace})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (c:Chunk {workspace: $workspace})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (e:Entity {workspace: $workspace})-[r]->() RETURN type(r) AS type
  UNION ALL
  MATCH (t:Date {workspace: $workspace})-[r]->() RETURN type(r) AS type
}
WITH type, count(*) AS n
RETURN type, n
ORDER BY n DESC, type
