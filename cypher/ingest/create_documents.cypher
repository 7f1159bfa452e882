// Documents the graph does not have yet (the pipeline checked before the run), with their REPORTED_BY and
// PUBLISHED_ON links. CREATE, not MERGE: nothing of a new document can exist, and the uniqueness constraint on
// Document.id turns a wrong assumption into an error instead of a duplicate.
// `access` (null: everyone) is copied onto the chunks by create_chunks / merge_chunks.
// content_hash is set later by mark_documents_done, once everything of the document is written.
UNWIND $rows AS row
CREATE (d:Document {workspace: $workspace, id: row.id, title: row.title, source: row.source, url: row.url, author: row.author,
                    category: row.category, published_at: row.published_at, access: row.access})
WITH d, row
OPTIONAL MATCH (p:Entity {workspace: $workspace, key: row.publication})
OPTIONAL MATCH (t:Date {workspace: $workspace, date: row.date})
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | CREATE (d)-[:REPORTED_BY]->(p))
FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END | CREATE (d)-[:PUBLISHED_ON]->(t))
