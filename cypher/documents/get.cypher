// One document by id, with its number of chunks; none when $readers (null: anyone) may not read it.
MATCH (d:Document {workspace: $workspace, id: $document_id})
WHERE ($readers IS NULL OR d.access IS NULL OR any(name IN d.access WHERE name IN $readers))
RETURN d.id AS id, d.title AS title, d.source AS source, d.published_at AS published, d.url AS url,
       d.author AS author, d.category AS category, d.content_hash IS NOT NULL AS committed, d.access AS access,
       COUNT { (d)-[:HAS_CHUNK]->(:Chunk {workspace: $workspace}) } AS chunks
