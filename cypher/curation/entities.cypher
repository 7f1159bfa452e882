// The entities an edit touches, with every label and property (ingest/curation/snapshot.py).
UNWIND $keys AS key
MATCH (e:Entity {workspace: $workspace, key: key})
RETURN e.key AS key, labels(e) AS labels, properties(e) AS props
ORDER BY key
