// Candidate nodes for several mentions at once from the `entity_names` full-text index (name + aliases).
// Each $queries item is {id, lucene}; lucene strings are built from normalised alphanumeric tokens only, so they
// carry no Lucene syntax from the user.
UNWIND $queries AS q
CALL db.index.fulltext.queryNodes('entity_names', q.lucene, {limit: $limit}) YIELD node, score
RETURN q.id AS query, node.key AS key, node.name AS name, node.label AS label,
       coalesce(node.aliases, []) AS aliases, score, COUNT { (node)<-[:MENTIONS]-() } AS mentions
