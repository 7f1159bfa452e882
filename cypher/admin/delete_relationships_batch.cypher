// One bounded step of emptying the graph (core/stores/bootstrap.py, empty_graph): relationships first, $limit at a time, so
// that no transaction holds a hub's thousands of relationships at once; repeated until it deletes nothing.
MATCH ()-[r]->()
WITH r LIMIT $limit
DELETE r
RETURN count(r) AS deleted
