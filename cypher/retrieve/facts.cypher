// Stage 3 in one read: every relationship the question's matched entities reach, tagged by how it was reached.
//   KEY     relationships between two matched entities;
//   BRIDGE  paths a-[r1]-m-[r2]-b joining two matched entities through one intermediate m that is neither matched
//           nor a Publication (two Publications are never bridged: that would be everything both outlets covered),
//           one row per relationship, `path` names the path;
//   DIRECT  relationships of each matched non-Publication entity (hops 1), and of its non-Publication neighbours
//           (hops 2). REPORTED_BY is provenance, not a fact about the entity, and is left out of DIRECT.
// Direction is preserved (subject = start node). Supporting chunks outside the question's date windows are dropped
// (undated chunks stay; a window with `sources` applies only to chunks of those outlets); a relationship left with
// no chunk is not returned. `named_hits` counts supporting chunks from outlets the question names.
CALL () {
  MATCH (a:Entity)-[r]->(b:Entity)
  WHERE a.key IN $keys AND b.key IN $keys AND a <> b
  RETURN r, 'KEY' AS tier, null AS via, null AS path, 1 AS hops
  LIMIT $key_limit
  UNION ALL
  MATCH (a:Entity)-[r1]-(m:Entity)-[r2]-(b:Entity)
  WHERE a.key IN $keys AND b.key IN $keys AND a.key < b.key
    AND NOT m.key IN $keys AND NOT m:Publication AND NOT (a:Publication AND b:Publication)
  WITH m, r1, r2
  LIMIT $bridge_scan
  UNWIND [r1, r2] AS r
  RETURN r, 'BRIDGE' AS tier, m.name AS via, elementId(r1) + '|' + elementId(r2) AS path, 1 AS hops
  UNION ALL
  UNWIND $keys AS k
  MATCH (a:Entity {key: k})
  WHERE NOT a:Publication
  CALL (a) {
    MATCH (a)-[r]-(n:Entity)
    WHERE type(r) <> 'REPORTED_BY' AND NOT n.key IN $keys
    RETURN r
    ORDER BY size(r.chunk_ids) DESC
    LIMIT $direct_per_entity
  }
  RETURN r, 'DIRECT' AS tier, null AS via, null AS path, 1 AS hops
  UNION ALL
  UNWIND $keys AS k
  MATCH (a:Entity {key: k})
  WHERE NOT a:Publication
  CALL (a) {
    MATCH (a)-[r1]-(m:Entity)-[r]-(n:Entity)
    WHERE type(r1) <> 'REPORTED_BY' AND type(r) <> 'REPORTED_BY' AND NOT m:Publication
      AND n <> a AND NOT m.key IN $keys AND NOT n.key IN $keys
    WITH DISTINCT r
    LIMIT $two_hop_scan
    RETURN r
    ORDER BY size(r.chunk_ids) DESC
    LIMIT $two_hop_per_entity
  }
  RETURN r, 'DIRECT' AS tier, null AS via, null AS path, 2 AS hops
}
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
WITH r, tier, via, path, hops, chunk_ids, named_hits, evidence
WHERE size(chunk_ids) > 0
RETURN tier, via, path, hops, startNode(r).name AS subject, startNode(r).key AS subject_key,
       startNode(r).label AS subject_label, type(r) AS relationship, endNode(r).name AS object,
       endNode(r).key AS object_key, endNode(r).label AS object_label, chunk_ids, evidence, named_hits
