// GET /v1/entities: full-text candidates for a lookup string, optionally one label, with their degree.
CALL db.index.fulltext.queryNodes('entity_names', $lucene, {limit: $limit}) YIELD node, score
WHERE $label IS NULL OR node.label = $label
RETURN node.key AS key, node.name AS name, node.label AS label, coalesce(node.aliases, []) AS aliases,
       score, COUNT { (node)<-[:MENTIONS]-() } AS mentions, COUNT { (node)-[]-(:Entity) } AS degree
