// Documents a run began and did not finish (no commit marker), other than pending deletes.
MATCH (d:Document {workspace: $workspace})
WHERE d.content_hash IS NULL AND d.deleting IS NULL
RETURN d.id AS id, d.title AS title
ORDER BY id
LIMIT $limit
