// Take the given chunks out of the provenance of the relationships they support; relationships left with none are
// removed. Only the relationships a chunk can support are looked at: those between two entities it mentions (what its
// extraction found) and REPORTED_BY from an entity it mentions to its document's publication (ingest/enrich.py), each
// found by an expand-into between the two end nodes; not every relationship of every entity the chunk mentions (a
// hub has thousands).
UNWIND $chunk_ids AS cid
MATCH (c:Chunk {id: cid})
CALL (c) {
  MATCH (c)-[:MENTIONS]->(a:Entity), (c)-[:MENTIONS]->(b:Entity)
  WHERE a <> b
  MATCH (a)-[r]->(b)
  RETURN r
  UNION
  MATCH (c)<-[:HAS_CHUNK]-(:Document)-[:REPORTED_BY]->(p:Entity)
  MATCH (c)-[:MENTIONS]->(:Entity)-[r:REPORTED_BY]->(p)
  RETURN r
}
WITH DISTINCT r
WHERE r.chunk_ids IS NOT NULL AND any(x IN r.chunk_ids WHERE x IN $chunk_ids)
WITH r, [i IN range(0, size(r.chunk_ids) - 1) WHERE NOT r.chunk_ids[i] IN $chunk_ids] AS keep
SET r.chunk_ids = [i IN keep | r.chunk_ids[i]],
    r.evidence = CASE WHEN r.evidence IS NULL THEN null ELSE [i IN keep | coalesce(r.evidence[i], '')] END
WITH r, keep
WHERE size(keep) = 0
DELETE r
RETURN count(r) AS removed_relationships
