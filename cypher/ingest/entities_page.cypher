// Entities one page at a time in key order (the Entity.key uniqueness index serves the order).
MATCH (e:Entity {workspace: $workspace})
WHERE e.key > $after
RETURN e.key AS key, e.label AS label, e.name AS name, e.norm AS norm, e.aliases AS aliases
ORDER BY key
LIMIT $limit
