// A document's chunks in order, for its text (the graph keeps the body only in its chunks).
MATCH (:Document {id: $document_id})-[:HAS_CHUNK]->(c:Chunk)
RETURN c.id AS id, c.index AS index, c.text AS text, c.locator AS locator, c.char_start AS char_start,
       c.char_end AS char_end
ORDER BY c.index
