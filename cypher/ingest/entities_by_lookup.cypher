// Stored entities of the workspace whose resolve_keys or link_keys hold one of the exact terms of $query (an OR of
// field:"value" phrases built by ingest/entity_lookup.py; the index's keyword analyzer makes each value one term).
CALL db.index.fulltext.queryNodes('entity_lookup', $query, {limit: 1000000}) YIELD node AS e
WITH e WHERE e.workspace = $workspace
RETURN e.key AS key, e.label AS label, e.name AS name, e.norm AS norm, e.aliases AS aliases
ORDER BY key
