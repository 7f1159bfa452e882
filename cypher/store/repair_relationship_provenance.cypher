// db check --repair: drop the chunk ids of chunks the graph does not have from every relationship's provenance
// (with their evidence); relationships left with none are deleted.
MATCH (:Entity)-[r]->(:Entity)
WHERE r.chunk_ids IS NULL OR size(r.chunk_ids) = 0
   OR any(cid IN r.chunk_ids WHERE NOT EXISTS { MATCH (:Chunk {id: cid}) })
WITH r, coalesce(r.chunk_ids, []) AS ids
WITH r, ids, [i IN range(0, size(ids) - 1) WHERE EXISTS { MATCH (:Chunk {id: ids[i]}) }] AS keep
SET r.chunk_ids = [i IN keep | ids[i]],
    r.evidence = CASE WHEN r.evidence IS NULL THEN null ELSE [i IN keep | coalesce(r.evidence[i], '')] END
WITH r, keep
WITH collect(CASE WHEN size(keep) = 0 THEN r END) AS empty, count(r) AS repaired
FOREACH (r IN empty | DELETE r)
RETURN repaired, size(empty) AS deleted
