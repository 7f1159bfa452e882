// Every document's key and title, to check which corpus the graph was built from (evaluation harness).
MATCH (d:Document {workspace: $workspace})
RETURN d.id AS id, d.title AS title
