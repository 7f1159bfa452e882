UNWIND $ids AS id
MATCH (d:Document {workspace: $workspace, id: id})
RETURN d.id AS id, d.content_hash AS content_hash
