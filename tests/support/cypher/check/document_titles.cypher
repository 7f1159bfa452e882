// Every document title.
MATCH (d:Document {workspace: $workspace})
RETURN d.title AS title
