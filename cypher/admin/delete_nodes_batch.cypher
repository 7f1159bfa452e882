// The second step of emptying the graph (core/stores/bootstrap.py, empty_graph): the nodes, $limit at a time, once
// delete_relationships_batch has left them none.
MATCH (n)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(n) AS deleted
