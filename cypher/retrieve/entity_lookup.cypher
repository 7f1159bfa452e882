// GET /v1/entities: full-text candidates for a lookup string in the workspace, optionally one label, with their
// degree (the index spans every workspace: filtered before the limit).
CALL db.index.fulltext.queryNodes('entity_names', $lucene) YIELD node, score
WHERE node.workspace = $workspace AND ($label IS NULL OR node.label = $label)
WITH node, score ORDER BY score DESC LIMIT $limit
RETURN node.key AS key, node.name AS name, node.label AS label, coalesce(node.aliases, []) AS aliases,
       score, COUNT { (node)<-[:MENTIONS]-() } AS mentions, COUNT { (node)-[]-(:Entity) } AS degree
