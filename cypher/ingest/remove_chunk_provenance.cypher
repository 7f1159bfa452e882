// Take the given chunks out of every relationship's provenance; relationships left with none are removed.
MATCH (c:Chunk)-[:MENTIONS]->(:Entity)-[r]-(:Entity)
WHERE c.id IN $chunk_ids AND r.chunk_ids IS NOT NULL AND any(x IN r.chunk_ids WHERE x IN $chunk_ids)
WITH DISTINCT r
WITH r, [i IN range(0, size(r.chunk_ids) - 1) WHERE NOT r.chunk_ids[i] IN $chunk_ids] AS keep
SET r.chunk_ids = [i IN keep | r.chunk_ids[i]],
    r.evidence = CASE WHEN r.evidence IS NULL THEN null ELSE [i IN keep | coalesce(r.evidence[i], '')] END
WITH r, keep
WHERE size(keep) = 0
DELETE r
RETURN count(r) AS removed_relationships
