// Chunks of documents new in this run (see create_documents): created with their HAS_CHUNK link and
// their document's `access` (what retrieval filters chunks by).
UNWIND $rows AS row
MATCH (d:Document {workspace: $workspace, id: row.document_id})
CREATE (d)-[:HAS_CHUNK]->(:Chunk {workspace: $workspace, id: row.id, document_id: row.document_id, index: row.index, text: row.text,
                                  title: row.title, source: row.source, published_at: row.published_at,
                                  locator: row.locator, char_start: row.char_start, char_end: row.char_end,
                                  access: d.access})
