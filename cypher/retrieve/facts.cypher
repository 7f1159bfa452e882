// Stage 3, facts: the relationships the question's matched entities reach (retrieve/candidates, the candidate chunks,
// runs beside it in its own read transaction).
//
// facts: every relationship reached, tagged by how it was reached:
//   KEY     relationships between two matched entities;
//   BRIDGE  paths a-[r1]-m-[r2]-b joining two matched entities through one intermediate m that is neither matched
//           nor a Publication (two Publications are never bridged: that would be everything both outlets covered),
//           one entry per relationship, `path` names the path;
//   DIRECT  relationships of each matched non-Publication entity (hops 1), and of its non-Publication neighbours
//           (hops 2). REPORTED_BY is provenance, not a fact about the entity, and is left out of DIRECT.
// Direction is preserved (subject = start node). Supporting chunks outside the question's date windows are dropped
// (undated chunks stay; a window with `sources` applies only to chunks of those outlets; a window admits `day` when
// w.lo <= day <= w.hi and w.md_lo <= its month-day <= w.md_hi, bounds from DateWindow.as_param); a relationship left with
// no chunk is not returned. `named_hits` counts supporting chunks from outlets the question names.
//
// $lists: the access lists a restricted reader may read (retrieval/scope.py); only chunks without a list or with
// one of these count (null: every chunk). For such a reader a relationship's `support` (what every bound below
// orders by) is its number of readable supporting chunks, a relationship with none is not read, and its
// $chunks_per_fact chunks are its first readable ones: unreadable chunks never decide which readable facts are read.
// Without $lists, `support` is the length of its chunk_ids. The hub bound ($two_hop_max_degree) counts such a reader's
// relationships of a neighbour: the mentions by readable chunks and the relationships with readable support (never more
// than all of them, so the store-wide count is read first and the readable one only for a hub).
// Deterministic and bounded on hub entities: every LIMIT follows an ORDER BY that ends in a unique key (a
// relationship is identified by its type and its end nodes' keys, a chunk by its id), so the rows kept never depend
// on the plan or on the order the graph was written in, and every expansion branch carries its own LIMIT: per
// matched entity (DIRECT), per first hop ($two_hop_fanout neighbours with at most $two_hop_max_degree relationships,
// then per neighbour), and at most $chunks_per_fact supporting chunks per relationship (its
// first ones).
CALL () {
  // both ends bound first: the relationships are read from the end with fewer (a Publication has thousands)
  MATCH (a:Entity {workspace: $workspace}) WHERE a.key IN $keys
  MATCH (b:Entity {workspace: $workspace}) WHERE b.key IN $keys AND a <> b
  MATCH (a)-[r]->(b)
  WITH r, a, b, CASE WHEN $lists IS NULL THEN size(r.chunk_ids) ELSE COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.id IN r.chunk_ids AND (c.access IS NULL OR c.access IN $lists) } END AS support
  WHERE $lists IS NULL OR support > 0
  WITH r, a, b ORDER BY support DESC, a.key, type(r), b.key
  LIMIT $key_limit
  RETURN r, 'KEY' AS tier, 0 AS tier_rank, null AS via, '' AS via_key, null AS path, 1 AS hops
  UNION ALL
  // a path a-m-b read from its end x that is not a Publication (one end is not), each pair once: (a, b) is (x, y)
  // in key order, r1 the relationship at a
  MATCH (x:Entity {workspace: $workspace}) WHERE x.key IN $keys AND NOT x:Publication
  MATCH (y:Entity {workspace: $workspace}) WHERE y.key IN $keys AND y <> x AND (y:Publication OR x.key < y.key)
  MATCH (x)-[rx]-(m:Entity)
  WHERE NOT m.key IN $keys AND NOT m:Publication
  MATCH (m)-[ry]-(y)
  WITH m, x.key < y.key AS forward, x, y, rx, ry
  WITH m, CASE WHEN forward THEN x ELSE y END AS a, CASE WHEN forward THEN y ELSE x END AS b,
       CASE WHEN forward THEN rx ELSE ry END AS r1, CASE WHEN forward THEN ry ELSE rx END AS r2
  WITH m, a, b, r1, r2, CASE WHEN $lists IS NULL THEN size(r1.chunk_ids) ELSE COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.id IN r1.chunk_ids AND (c.access IS NULL OR c.access IN $lists) } END AS support1
  WITH m, a, b, r1, r2, support1, CASE WHEN $lists IS NULL THEN size(r2.chunk_ids) ELSE COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.id IN r2.chunk_ids AND (c.access IS NULL OR c.access IN $lists) } END AS support2
  WHERE $lists IS NULL OR (support1 > 0 AND support2 > 0)
  WITH m, a, b, r1, r2 ORDER BY support1 + support2 DESC, m.key, a.key, b.key,
       type(r1), startNode(r1) = a, type(r2), startNode(r2) = m
  LIMIT $bridge_scan
  UNWIND [r1, r2] AS r
  RETURN r, 'BRIDGE' AS tier, 1 AS tier_rank, m.name AS via, m.key AS via_key,
         elementId(r1) + '|' + elementId(r2) AS path, 1 AS hops
  UNION ALL
  UNWIND $keys AS k
  MATCH (a:Entity {workspace: $workspace, key: k})
  WHERE NOT a:Publication
  CALL (a) {
    MATCH (a)-[r]-(n:Entity)
    WHERE type(r) <> 'REPORTED_BY' AND NOT n.key IN $keys
    WITH r, n, CASE WHEN $lists IS NULL THEN size(r.chunk_ids) ELSE COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.id IN r.chunk_ids AND (c.access IS NULL OR c.access IN $lists) } END AS support
    WHERE $lists IS NULL OR support > 0
    RETURN r
    ORDER BY support DESC, n.key, type(r), startNode(r) = a
    LIMIT $direct_per_entity
  }
  RETURN r, 'DIRECT' AS tier, 2 AS tier_rank, null AS via, '' AS via_key, null AS path, 1 AS hops
  UNION ALL
  UNWIND $keys AS k
  MATCH (a:Entity {workspace: $workspace, key: k})
  WHERE NOT a:Publication
  CALL (a) {
    MATCH (a)-[r1]-(m:Entity)
    WHERE type(r1) <> 'REPORTED_BY' AND NOT m:Publication AND NOT m.key IN $keys
      // a hub's own relationships say little about `a`; for a restricted reader, counted in what it may read (a CASE,
      // so the readable count is only read for a neighbour whose store-wide count is over the bound)
      AND CASE WHEN COUNT { (m)--() } <= $two_hop_max_degree THEN true
               WHEN $lists IS NULL THEN false
               ELSE COUNT { MATCH (c:Chunk {workspace: $workspace})-[:MENTIONS]->(m)
                            WHERE c.access IS NULL OR c.access IN $lists }
                    + COUNT { MATCH (m)-[x]-(:Entity)
                              WHERE EXISTS { MATCH (c:Chunk {workspace: $workspace})
                                             WHERE c.id IN coalesce(x.chunk_ids, [])
                                               AND (c.access IS NULL OR c.access IN $lists) } }
                    <= $two_hop_max_degree END
    WITH m, r1, CASE WHEN $lists IS NULL THEN size(r1.chunk_ids) ELSE COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.id IN r1.chunk_ids AND (c.access IS NULL OR c.access IN $lists) } END AS support
    WHERE $lists IS NULL OR support > 0
    WITH m, r1 ORDER BY support DESC, m.key, type(r1), startNode(r1) = a
    LIMIT $two_hop_fanout
    CALL (a, m) {
      MATCH (m)-[r]-(n:Entity)
      WHERE type(r) <> 'REPORTED_BY' AND n <> a AND NOT n.key IN $keys
      WITH r, n, CASE WHEN $lists IS NULL THEN size(r.chunk_ids) ELSE COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.id IN r.chunk_ids AND (c.access IS NULL OR c.access IN $lists) } END AS support
      WHERE $lists IS NULL OR support > 0
      RETURN r, support
      ORDER BY support DESC, n.key, type(r), startNode(r) = m
      LIMIT $two_hop_per_entity
    }
    WITH DISTINCT r, support
    RETURN r
    ORDER BY support DESC, type(r), startNode(r).key, endNode(r).key
    LIMIT $two_hop_per_entity
  }
  RETURN r, 'DIRECT' AS tier, 2 AS tier_rank, null AS via, '' AS via_key, null AS path, 2 AS hops
}
CALL (r) {
  WITH CASE WHEN $lists IS NULL THEN range(0, size(coalesce(r.chunk_ids, [])[0..$chunks_per_fact]) - 1)
       ELSE [i IN range(0, size(coalesce(r.chunk_ids, [])) - 1)
             WHERE EXISTS { MATCH (x:Chunk {workspace: $workspace, id: r.chunk_ids[i]}) WHERE x.access IS NULL OR x.access IN $lists }
            ][0..$chunks_per_fact] END AS positions
  UNWIND positions AS i
  MATCH (c:Chunk {workspace: $workspace, id: r.chunk_ids[i]})
  WHERE ($lists IS NULL OR c.access IS NULL OR c.access IN $lists)
  WITH r, i, c, left(toString(c.published_at), 10) AS day,
       [w IN $windows WHERE size(w.sources) = 0 OR c.source IN w.sources] AS ws
  WHERE day IS NULL OR size(ws) = 0 OR any(w IN ws WHERE w.lo <= day <= w.hi AND w.md_lo <= substring(day, 5) <= w.md_hi)
  WITH r, i, c ORDER BY i
  WITH collect(c.id) AS chunk_ids, collect(i) AS positions,
       sum(CASE WHEN c.source IN $sources THEN 1 ELSE 0 END) AS named_hits
  RETURN chunk_ids, named_hits,
         [j IN positions WHERE j < size(coalesce(r.evidence, [])) | r.evidence[j]] AS evidence
}
WITH r, tier, tier_rank, via, via_key, path, hops, chunk_ids, named_hits, evidence
WHERE size(chunk_ids) > 0
WITH r, tier, via, path, hops, chunk_ids, named_hits, evidence
ORDER BY tier_rank, hops, via_key, CASE WHEN $lists IS NULL THEN size(r.chunk_ids) ELSE size(chunk_ids) END DESC, type(r),
         startNode(r).key, endNode(r).key
RETURN collect({tier: tier, via: via, path: path, hops: hops, subject: startNode(r).name,
       subject_key: startNode(r).key, subject_label: startNode(r).label, relationship: type(r),
       object: endNode(r).name, object_key: endNode(r).key, object_label: endNode(r).label, chunk_ids: chunk_ids,
       evidence: evidence, named_hits: named_hits}) AS facts
