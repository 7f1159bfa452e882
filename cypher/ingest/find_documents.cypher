// A document by id, else by exact title (for `graphwire ingest --delete`): two index seeks (the id constraint, the
// document_title index), never a scan of the documents. A document whose title is its own id is listed once.
CALL () {
  MATCH (d:Document {workspace: $workspace, id: $ref})
  RETURN d
  UNION
  MATCH (d:Document {workspace: $workspace, title: $ref})
  RETURN d
}
RETURN d.id AS id, d.title AS title
ORDER BY id
