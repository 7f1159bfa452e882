// Chunks beyond the facts: those that mention matched entities, those of documents from named publications, and
// (when the question names bounded dates) those published inside the windows. Ranked by matched entities mentioned.
// Ids and counters only: texts come from the retriever's chunk cache (retrieve/chunks_by_id on a miss).
CALL () {
  UNWIND $entity_keys AS k
  MATCH (:Entity {key: k})<-[m:MENTIONS]-(c:Chunk)
  RETURN c, 1 AS hit, coalesce(m.count, 1) AS mentions
  UNION ALL
  UNWIND $publication_keys AS k
  MATCH (:Entity {key: k})<-[:REPORTED_BY]-(:Document)-[:HAS_CHUNK]->(c:Chunk)
  RETURN c, 0 AS hit, 0 AS mentions
  UNION ALL
  UNWIND [w IN $windows WHERE w.start IS NOT NULL AND w.end IS NOT NULL] AS w
  MATCH (d:Date) WHERE d.date >= w.start AND d.date <= w.end
  MATCH (d)<-[:PUBLISHED_ON]-(:Document)-[:HAS_CHUNK]->(c:Chunk)
  RETURN c, 0 AS hit, 0 AS mentions
}
WITH c, sum(hit) AS entities, sum(mentions) AS mentions
WITH c, entities, mentions, left(toString(c.published_at), 10) AS day,
     [w IN $windows WHERE size(w.sources) = 0 OR c.source IN w.sources] AS ws
WITH c, entities, mentions, day, ws,
     any(w IN ws WHERE day IS NOT NULL AND (w.start IS NULL OR day >= w.start) AND (w.end IS NULL OR day <= w.end)
         AND (w.md_start IS NULL OR (substring(day, 5) >= w.md_start AND substring(day, 5) <= w.md_end))) AS in_window
WHERE day IS NULL OR size(ws) = 0 OR in_window
RETURN c.id AS chunk_id, entities, mentions,
       coalesce(c.source IN $sources, false) AS named, coalesce(in_window, false) AS in_window
ORDER BY entities DESC, named DESC, in_window DESC, mentions DESC, chunk_id
LIMIT $limit
