// One row per document: its metadata. Old REPORTED_BY / PUBLISHED_ON links are replaced (metadata may have changed).
// content_hash is set later by mark_documents_done, once everything of the document is written.
UNWIND $rows AS row
MERGE (d:Document {id: row.id})
SET d.title = row.title, d.source = row.source, d.url = row.url, d.author = row.author,
    d.category = row.category, d.published_at = row.published_at
WITH d
OPTIONAL MATCH (d)-[old:REPORTED_BY|PUBLISHED_ON]->()
DELETE old
