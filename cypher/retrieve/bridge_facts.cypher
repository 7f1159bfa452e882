// BRIDGE: paths joining two matched entities through one intermediate that is neither matched nor a Publication.
// Two publications are never bridged to each other (that would be everything both outlets covered).
MATCH (a:Entity)-[r1]-(m:Entity)-[r2]-(b:Entity)
WHERE a.key IN $keys AND b.key IN $keys AND a.key < b.key
  AND NOT m.key IN $keys AND NOT m:Publication
  AND NOT (a:Publication AND b:Publication)
WITH a, m, b, r1, r2
LIMIT $scan
UNWIND [r1, r2] AS r
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
WITH a, m, b, collect({
  subject: startNode(r).name, subject_key: startNode(r).key, subject_label: startNode(r).label,
  relationship: type(r), object: endNode(r).name, object_key: endNode(r).key, object_label: endNode(r).label,
  chunk_ids: chunk_ids, evidence: evidence, named_hits: named_hits, hops: 2
}) AS path
WHERE all(f IN path WHERE size(f.chunk_ids) > 0)
RETURN m.key AS via, path, reduce(s = 0, f IN path | s + f.named_hits) AS named_hits,
       reduce(s = 0, f IN path | s + size(f.chunk_ids)) AS support
ORDER BY named_hits DESC, support DESC, via
LIMIT $limit
