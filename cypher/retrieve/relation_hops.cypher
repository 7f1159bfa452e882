// Chain expansion: relationships of the asked types ($types) around entities the first read already reached ($keys),
// so a question that chains relations ("the CEO of the company that owns the maker of X") finds the hop past the
// two-hop neighbourhood. Same date-window rule as retrieve/facts_and_candidates; at most $per_entity per entity, $limit
// in all, each kept by support with a unique tie-break (type, end nodes' keys), so hubs give the same rows every time;
// at most $chunks_per_fact supporting chunks per relationship.
// $lists: the access lists a restricted reader may read (retrieval/scope.py); only chunks without a list or with
// one of these count (null: every chunk), and support, the bounds and the chunks read are the readable ones (as in
// retrieve/facts).
// An entity not in $near (the question's entities and those the facts read join to them through relationships of the
// asked types: retrieval/graph/templates.py `on_chain`) is not expanded when it is a hub: more than
// $two_hop_max_degree relationships, mentions included, counted as retrieve/facts counts a neighbour's (for a
// restricted reader, what it may read). Its relationships of the asked types cannot be read without reading all of
// them (the types are a parameter), and a city that thousands of the articles name, reached by a relationship the
// question does not ask about, says little about the one it asks for; on the chain ("the chief executive of the
// company that acquired X": X's acquirer) a hub is read whatever its degree.
UNWIND $keys AS k
MATCH (a:Entity {workspace: $workspace, key: k})
WHERE NOT a:Publication
  AND (a.key IN $near
       OR CASE WHEN COUNT { (a)--() } <= $two_hop_max_degree THEN true
               WHEN $lists IS NULL THEN false
               ELSE COUNT { MATCH (c:Chunk {workspace: $workspace})-[:MENTIONS]->(a)
                            WHERE c.access IS NULL OR c.access IN $lists }
                    + COUNT { MATCH (a)-[x]-(:Entity)
                              WHERE EXISTS { MATCH (c:Chunk {workspace: $workspace})
                                             WHERE c.id IN coalesce(x.chunk_ids, [])
                                               AND (c.access IS NULL OR c.access IN $lists) } }
                    <= $two_hop_max_degree END)
CALL (a) {
  MATCH (a)-[r]-(n:Entity)
  WHERE type(r) IN $types AND NOT n:Publication
  WITH r, n, CASE WHEN $lists IS NULL THEN size(r.chunk_ids) ELSE COUNT { MATCH (c:Chunk {workspace: $workspace}) WHERE c.id IN r.chunk_ids AND (c.access IS NULL OR c.access IN $lists) } END AS support
  WHERE $lists IS NULL OR support > 0
  RETURN r, support
  ORDER BY support DESC, n.key, type(r), startNode(r) = a
  LIMIT $per_entity
}
WITH DISTINCT r, support
ORDER BY support DESC, type(r), startNode(r).key, endNode(r).key
LIMIT $limit
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
