// Every entity with its names, for the review queue's blocking (ingest/curation/candidates.py).
MATCH (e:Entity {workspace: $workspace})
RETURN e.key AS key, e.label AS label, e.name AS name, coalesce(e.aliases, []) AS aliases
ORDER BY key
