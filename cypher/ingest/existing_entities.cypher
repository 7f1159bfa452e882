MATCH (e:Entity {workspace: $workspace})
RETURN e.key AS key, e.label AS label, e.name AS name, e.norm AS norm, e.aliases AS aliases
