// Chain expansion: relationships of the asked types ($types) around entities the first read already reached ($keys),
// so a question that chains relations ("the CEO of the company that owns the maker of X") finds the hop past the
// two-hop neighbourhood. Same date-window rule as retrieve/facts_and_candidates; at most $per_entity per entity, $limit
// in all, each kept by support with a unique tie-break (type, end nodes' keys), so hubs give the same rows every time;
// at most $chunks_per_fact supporting chunks per relationship.
// $lists: the access lists a restricted reader may read (retrieval/scope.py); only chunks without a list or with
// one of these count (null: every chunk).
UNWIND $keys AS k
MATCH (a:Entity {key: k})
WHERE NOT a:Publication
CALL (a) {
  MATCH (a)-[r]-(n:Entity)
  WHERE type(r) IN $types AND NOT n:Publication
  RETURN r
  ORDER BY size(r.chunk_ids) DESC, n.key, type(r), startNode(r) = a
  LIMIT $per_entity
}
WITH DISTINCT r
ORDER BY size(r.chunk_ids) DESC, type(r), startNode(r).key, endNode(r).key
LIMIT $limit
CALL (r) {
  UNWIND range(0, size(coalesce(r.chunk_ids, [])[0..$chunks_per_fact]) - 1) AS i
  MATCH (c:Chunk {id: r.chunk_ids[i]})
  WHERE ($lists IS NULL OR c.access IS NULL OR c.access IN $lists)
  WITH r, i, c, left(toString(c.published_at), 10) AS day,
       [w IN $windows WHERE size(w.sources) = 0 OR c.source IN w.sources] AS ws
  WHERE day IS NULL OR size(ws) = 0 OR any(w IN ws WHERE w.lo <= day <= w.hi AND w.md_lo <= substring(day, 5) <= w.md_hi)
  WITH collect(c.id) AS chunk_ids, collect(i) AS positions,
       sum(CASE WHEN c.source IN $sources THEN 1 ELSE 0 END) AS named_hits
  RETURN chunk_ids, named_hits,
         [j IN positions WHERE j < size(coalesce(r.evidence, [])) | r.evidence[j]] AS evidence
}
WITH r, chunk_ids, named_hits, evidence
WHERE size(chunk_ids) > 0
RETURN startNode(r).name AS subject, startNode(r).key AS subject_key, startNode(r).label AS subject_label,
       type(r) AS relationship, endNode(r).name AS object, endNode(r).key AS object_key,
       endNode(r).label AS object_label, chunk_ids, evidence, named_hits, 3 AS hops
