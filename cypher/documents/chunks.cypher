// A document's chunks in order, for its text (the graph keeps the body only in its chunks).
MATCH (:Document {id: $document_id})-[:HAS_CHUNK]->(c:Chunk)
RETURN c.id AS id, c.index AS index, c.text AS text
ORDER BY c.index
