// The second step of emptying a workspace (core/stores/bootstrap.py, empty_graph): its nodes, $limit at a time, once
// delete_relationships_batch has left them none. Its registry entry stays: an emptied workspace still exists, and
// deleting one removes the entry last (core/stores/workspace_registry.py).
MATCH (n)
WHERE n.workspace = $workspace AND NOT n:Workspace
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(n) AS deleted
