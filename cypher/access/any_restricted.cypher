// Whether any document carries an access list (the routes that show the whole graph refuse restricted readers then).
MATCH (d:Document {workspace: $workspace})
WHERE d.access IS NOT NULL
RETURN d.id AS id
LIMIT 1
