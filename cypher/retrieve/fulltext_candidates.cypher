// Candidate nodes for one mention from the `entity_names` full-text index (name + aliases).
// $lucene is built from normalised alphanumeric tokens only, so it carries no Lucene syntax from the user.
CALL db.index.fulltext.queryNodes('entity_names', $lucene, {limit: $limit}) YIELD node, score
RETURN node.key AS key, node.name AS name, node.label AS label, coalesce(node.aliases, []) AS aliases,
       score, COUNT { (node)<-[:MENTIONS]-() } AS mentions
