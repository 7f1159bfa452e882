// A document's chunks in order, for its text (the graph keeps the body only in its chunks); none when $readers
// (null: anyone) may not read it.
MATCH (d:Document {workspace: $workspace, id: $document_id})-[:HAS_CHUNK]->(c:Chunk {workspace: $workspace})
WHERE ($readers IS NULL OR d.access IS NULL OR any(name IN d.access WHERE name IN $readers))
RETURN c.id AS id, c.index AS index, c.text AS text, c.locator AS locator, c.char_start AS char_start,
       c.char_end AS char_end
ORDER BY c.index
