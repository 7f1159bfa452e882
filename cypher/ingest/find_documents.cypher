// A document by id, else by exact title (for `graphwire ingest --delete`).
MATCH (d:Document)
WHERE d.id = $ref OR d.title = $ref
RETURN d.id AS id, d.title AS title
