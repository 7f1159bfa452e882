// One bounded step of emptying a workspace (core/stores/bootstrap.py, empty_graph): the relationships leaving its
// documents, chunks, entities and days, $limit at a time, so that no transaction holds a hub's thousands of
// relationships at once; repeated until it deletes nothing. Every relationship leaves one of them.
CALL () {
  MATCH (:Document {workspace: $workspace})-[r]->() RETURN r LIMIT $limit
  UNION ALL
  MATCH (:Chunk {workspace: $workspace})-[r]->() RETURN r LIMIT $limit
  UNION ALL
  MATCH (:Entity {workspace: $workspace})-[r]->() RETURN r LIMIT $limit
  UNION ALL
  MATCH (:Date {workspace: $workspace})-[r]->() RETURN r LIMIT $limit
}
WITH r LIMIT $limit
DELETE r
RETURN count(r) AS deleted
