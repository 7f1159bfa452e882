// The second step of emptying a workspace (core/stores/bootstrap.py, empty_graph): its nodes, $limit at a time, once
// delete_relationships_batch has left them none.
MATCH (n)
WHERE n.workspace = $workspace
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(n) AS deleted
