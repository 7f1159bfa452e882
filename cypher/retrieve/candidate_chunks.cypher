// Chunks beyond the facts: those that mention matched entities, those of documents from named publications, and
// (when the question names dates) those published inside the windows. Ranked by matched entities mentioned.
CALL () {
  UNWIND $entity_keys AS k
  MATCH (:Entity {key: k})<-[m:MENTIONS]-(c:Chunk)
  RETURN c, 1 AS hit, coalesce(m.count, 1) AS mentions
  UNION ALL
  UNWIND $publication_keys AS k
  MATCH (:Entity {key: k})<-[:REPORTED_BY]-(:Document)-[:HAS_CHUNK]->(c:Chunk)
  RETURN c, 0 AS hit, 0 AS mentions
  UNION ALL
  UNWIND $windows AS w
  MATCH (d:Date) WHERE d.date >= w.start AND d.date <= w.end
  MATCH (d)<-[:PUBLISHED_ON]-(:Document)-[:HAS_CHUNK]->(c:Chunk)
  RETURN c, 0 AS hit, 0 AS mentions
}
WITH c, sum(hit) AS entities, sum(mentions) AS mentions
WITH c, entities, mentions,
     size($windows) > 0 AND c.published_at IS NOT NULL
       AND any(w IN $windows WHERE toString(c.published_at) >= w.start AND toString(c.published_at) <= w.end)
       AS in_window
WHERE size($windows) = 0 OR c.published_at IS NULL OR in_window
RETURN c.id AS chunk_id, c.document_id AS document_id, c.title AS title, c.source AS source,
       c.published_at AS published_at, c.text AS text, entities, mentions,
       c.source IN $sources AS named, in_window
ORDER BY entities DESC, named DESC, in_window DESC, mentions DESC, chunk_id
LIMIT $limit
