// Documents the graph already has (an update, or a run that did not finish): metadata replaced, and the old
// REPORTED_BY / PUBLISHED_ON links with it, since the source or the date may have changed.
// content_hash is set later by mark_documents_done, once everything of the document is written; the old one goes
// now, so that a run killed before that redoes the document even if the next run brings its old text back.
UNWIND $rows AS row
MERGE (d:Document {workspace: $workspace, id: row.id})
SET d.title = row.title, d.source = row.source, d.url = row.url, d.author = row.author,
    d.category = row.category, d.published_at = row.published_at, d.access = row.access,
    d.content_hash = null
WITH d, row
OPTIONAL MATCH (d)-[old:REPORTED_BY|PUBLISHED_ON]->()
DELETE old
WITH DISTINCT d, row
OPTIONAL MATCH (p:Entity {workspace: $workspace, key: row.publication})
OPTIONAL MATCH (t:Date {workspace: $workspace, date: row.date})
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | MERGE (d)-[:REPORTED_BY]->(p))
FOREACH (_ IN CASE WHEN t IS NULL THEN [] ELSE [1] END | MERGE (d)-[:PUBLISHED_ON]->(t))
