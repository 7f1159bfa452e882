// One document by id, with its number of chunks.
MATCH (d:Document {id: $document_id})
RETURN d.id AS id, d.title AS title, d.source AS source, d.published_at AS published, d.url AS url,
       d.author AS author, d.category AS category, d.content_hash IS NOT NULL AS committed,
       COUNT { (d)-[:HAS_CHUNK]->(:Chunk) } AS chunks
