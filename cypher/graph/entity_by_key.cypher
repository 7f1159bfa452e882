// Resolve an entity given by its key (e.g. `Person:ilse marrow`).
MATCH (e:Entity {workspace: $workspace, key: $key})
RETURN e.key AS key, e.name AS name, e.label AS label
