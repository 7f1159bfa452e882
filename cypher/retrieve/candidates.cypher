// Stage 3, candidates: the chunks the graph ranks for the question (retrieve/facts, the facts, runs beside it in its
// own read transaction).
//
// candidates: chunks that mention matched entities, chunks of documents from named publications, and (when the
// question names bounded dates) chunks published inside the windows; ranked by matched entities mentioned. Ids and
// counters only: texts come from the retriever's chunk cache (retrieve/chunks_by_id on a miss).
// Mentions of matched entities are ranked together (a chunk that mentions two matched entities comes first). The
// publication and date branches keep their own best $limit by the final order: they only add chunks that mention no
// matched entity (entities 0; any other chunk is also in the first branch), so the overall best $limit is the same.
// $lists: the access lists a restricted reader may read (retrieval/scope.py); only chunks without a list or with
// one of these count (null: every chunk).
// Deterministic: every LIMIT follows an ORDER BY that ends in a chunk's id.
CALL () {
  UNWIND $entity_keys AS k
  MATCH (:Entity {workspace: $workspace, key: k})<-[m:MENTIONS]-(c:Chunk)
  RETURN c, 1 AS hit, coalesce(m.count, 1) AS mentions
  UNION ALL
  UNWIND $publication_keys AS k
  MATCH (p:Entity {workspace: $workspace, key: k})
  CALL (p) {
    // p's documents through their sources (an index seek; $publication_sources are the sources whose documents
    // report to a matched publisher), not through p's REPORTED_BY, which are mostly entities' (thousands on an outlet)
    MATCH (d:Document {workspace: $workspace}) WHERE d.source IN $publication_sources
    MATCH (d)-[:REPORTED_BY]->(publisher)  // read from d: one relationship, where p has thousands
    WITH d, p, publisher WHERE publisher = p
    MATCH (d)-[:HAS_CHUNK]->(c:Chunk)
    WITH c, left(toString(c.published_at), 10) AS day, [w IN $windows WHERE size(w.sources) = 0 OR c.source IN w.sources] AS ws
    WITH c, day, ws,
         day IS NOT NULL AND any(w IN ws WHERE w.lo <= day <= w.hi AND w.md_lo <= substring(day, 5) <= w.md_hi) AS in_window
    WHERE (day IS NULL OR size(ws) = 0 OR in_window) AND ($lists IS NULL OR c.access IS NULL OR c.access IN $lists)
    WITH c, coalesce(c.source IN $sources, false) AS named, coalesce(in_window, false) AS in_window
    RETURN c
    ORDER BY named DESC, in_window DESC, c.id
    LIMIT $limit
  }
  RETURN c, 0 AS hit, 0 AS mentions
  UNION ALL
  UNWIND [w IN $windows WHERE w.start IS NOT NULL AND w.end IS NOT NULL] AS w
  CALL (w) {
    MATCH (d:Date {workspace: $workspace}) WHERE d.date >= w.start AND d.date <= w.end
    MATCH (d)<-[:PUBLISHED_ON]-(:Document)-[:HAS_CHUNK]->(c:Chunk)
    WITH DISTINCT c
    WITH c, left(toString(c.published_at), 10) AS day, [x IN $windows WHERE size(x.sources) = 0 OR c.source IN x.sources] AS ws
    WITH c, day, ws,
         day IS NOT NULL AND any(x IN ws WHERE x.lo <= day <= x.hi AND x.md_lo <= substring(day, 5) <= x.md_hi) AS in_window
    WHERE (day IS NULL OR size(ws) = 0 OR in_window) AND ($lists IS NULL OR c.access IS NULL OR c.access IN $lists)
    WITH c, coalesce(c.source IN $sources, false) AS named, coalesce(in_window, false) AS in_window
    RETURN c
    ORDER BY named DESC, in_window DESC, c.id
    LIMIT $limit
  }
  RETURN c, 0 AS hit, 0 AS mentions
}
WITH c, hit, mentions WHERE ($lists IS NULL OR c.access IS NULL OR c.access IN $lists)
WITH c, sum(hit) AS entities, sum(mentions) AS mentions
WITH c, entities, mentions, left(toString(c.published_at), 10) AS day,
     [w IN $windows WHERE size(w.sources) = 0 OR c.source IN w.sources] AS ws
WITH c, entities, mentions, day, ws,
     day IS NOT NULL AND any(w IN ws WHERE w.lo <= day <= w.hi AND w.md_lo <= substring(day, 5) <= w.md_hi) AS in_window
WHERE day IS NULL OR size(ws) = 0 OR in_window
WITH c, entities, mentions, coalesce(c.source IN $sources, false) AS named, coalesce(in_window, false) AS in_window
ORDER BY entities DESC, named DESC, in_window DESC, mentions DESC, c.id
LIMIT $limit
RETURN collect({chunk_id: c.id, entities: entities, mentions: mentions, named: named, in_window: in_window}) AS candidates
