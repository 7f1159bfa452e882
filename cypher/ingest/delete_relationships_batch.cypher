// Empty a large graph in bounded transactions (a single DETACH DELETE of everything can exceed the transaction
// memory limit): call until it returns 0, then delete_nodes_batch.
MATCH ()-[r]->()
WITH r LIMIT $limit
DELETE r
RETURN count(r) AS deleted
