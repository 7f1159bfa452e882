// KEY: relationships between two matched entities, direction preserved. Supporting chunks outside the question's
// date windows are dropped (undated chunks stay); a relationship left with no chunk is not returned.
MATCH (a:Entity)-[r]->(b:Entity)
WHERE a.key IN $keys AND b.key IN $keys AND a <> b
CALL (r) {
  UNWIND range(0, size(coalesce(r.chunk_ids, [])) - 1) AS i
  MATCH (c:Chunk {id: r.chunk_ids[i]})
  WHERE size($windows) = 0 OR c.published_at IS NULL
     OR any(w IN $windows WHERE toString(c.published_at) >= w.start AND toString(c.published_at) <= w.end)
  RETURN collect(c.id) AS chunk_ids,
         [j IN collect(i) WHERE j < size(coalesce(r.evidence, [])) | r.evidence[j]] AS evidence,
         sum(CASE WHEN c.source IN $sources THEN 1 ELSE 0 END) AS named_hits
}
WITH a, r, b, chunk_ids, evidence, named_hits
WHERE size(chunk_ids) > 0
RETURN a.name AS subject, a.key AS subject_key, a.label AS subject_label, type(r) AS relationship,
       b.name AS object, b.key AS object_key, b.label AS object_label, chunk_ids, evidence, named_hits, 1 AS hops
ORDER BY named_hits DESC, size(chunk_ids) DESC, subject, relationship, object
LIMIT $limit
