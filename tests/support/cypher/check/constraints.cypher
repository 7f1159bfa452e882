// What the schema bootstrap left in the database: every constraint, by name.
SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties
RETURN name, type, labelsOrTypes AS labels, properties
ORDER BY name
