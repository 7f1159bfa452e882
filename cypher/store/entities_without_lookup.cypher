// Entities without the lookup properties ingest reads stored entities by (ingest/entity_lookup.py): written by a
// graphwire that predates them after the store was migrated. A run cannot find them, so it would duplicate them.
MATCH (e:Entity {workspace: $workspace})
WHERE e.fuzzy_key IS NULL OR e.resolve_keys IS NULL OR e.link_keys IS NULL
RETURN e.key AS key, e.label AS label, e.name AS name, e.norm AS norm, e.aliases AS aliases
ORDER BY key
LIMIT $limit
