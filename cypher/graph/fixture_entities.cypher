// Test and benchmark fixtures only: entities with their schema label set dynamically.
UNWIND $rows AS row
MERGE (e:Entity {key: row.key})
SET e.name = row.name, e.label = row.label, e.aliases = row.aliases, e.norm = row.norm, e:$(row.label)
