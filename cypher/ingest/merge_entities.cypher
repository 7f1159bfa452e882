// Entities by key; the schema label is set dynamically (Cypher 5.26), aliases only grow.
UNWIND $rows AS row
MERGE (e:Entity {key: row.key})
ON CREATE SET e.name = row.name, e.norm = row.norm, e.label = row.label, e.aliases = []
SET e:$(row.label)
SET e.aliases = e.aliases + [a IN row.aliases WHERE NOT a IN e.aliases]
