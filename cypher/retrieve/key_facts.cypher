// KEY: relationships between two matched entities, direction preserved. Supporting chunks outside the question's
// date windows are dropped (undated chunks stay); a relationship left with no chunk is not returned.
MATCH (a:Entity)-[r]->(b:Entity)
WHERE a.key IN $keys AND b.key IN $keys AND a <> b
CALL (r) {
  UNWIND range(0, size(coalesce(r.chunk_ids, [])) - 1) AS i
  MATCH (c:Chunk {id: r.chunk_ids[i]})
  WITH r, i, c, left(toString(c.published_at), 10) AS day,
       [w IN $windows WHERE size(w.sources) = 0 OR c.source IN w.sources] AS ws
  WHERE day IS NULL OR size(ws) = 0 OR any(w IN ws WHERE (w.start IS NULL OR day >= w.start)
        AND (w.end IS NULL OR day <= w.end)
        AND (w.md_start IS NULL OR (substring(day, 5) >= w.md_start AND substring(day, 5) <= w.md_end)))
  WITH collect(c.id) AS chunk_ids, collect(i) AS positions,
       sum(CASE WHEN c.source IN $sources THEN 1 ELSE 0 END) AS named_hits
  RETURN chunk_ids, named_hits,
         [j IN positions WHERE j < size(coalesce(r.evidence, [])) | r.evidence[j]] AS evidence
}
WITH a, r, b, chunk_ids, evidence, named_hits
WHERE size(chunk_ids) > 0
RETURN a.name AS subject, a.key AS subject_key, a.label AS subject_label, type(r) AS relationship,
       b.name AS object, b.key AS object_key, b.label AS object_label, chunk_ids, evidence, named_hits, 1 AS hops
ORDER BY named_hits DESC, size(chunk_ids) DESC, subject, relationship, object
LIMIT $limit
