// Every index with its state (constraint-backed ones name their constraint in `owner`).
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, state, owningConstraint
RETURN name, type, labelsOrTypes AS labels, properties, state, owningConstraint AS owner
ORDER BY name
