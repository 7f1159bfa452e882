// Take the given chunks out of the provenance of the relationships they support; relationships left with none are
// removed. Only the relationships a chunk can support are looked at: those between two entities it mentions (what its
// extraction found) and REPORTED_BY from an entity it mentions to its document's publication (ingest/enrich.py), each
// found by an expand-into between the two end nodes; not every relationship of every entity the chunk mentions (a
// hub has thousands).
// A relationship of a capped type ($capped_types: ingest/provenance.py) holds every chunk whose sentence states it and
// only the $cap smallest ids of the chunks that imply it (evidence ''); one that held $cap implied entries may have
// left some out, so its implied part is refilled with the $cap smallest ids of the chunks that still imply it:
// chunks other than the removed ones that mention its subject (tagger MENTIONS, not `linked` ones) in a document
// REPORTED_BY its target (what ingest/enrich.py infers). Refilled entries get evidence ''. Only full capped
// relationships pay for this, and it costs a scan of all the subject's MENTIONS (a hub's thousands). The chunks being
// removed still exist here (ingest/writer.py deletes them next), hence the explicit exclusion.
UNWIND $chunk_ids AS cid
MATCH (c:Chunk {workspace: $workspace, id: cid})
CALL (c) {
  MATCH (c)-[:MENTIONS]->(a:Entity {workspace: $workspace}), (c)-[:MENTIONS]->(b:Entity {workspace: $workspace})
  WHERE a <> b
  MATCH (a)-[r]->(b)
  RETURN r
  UNION
  MATCH (c)<-[:HAS_CHUNK]-(:Document {workspace: $workspace})-[:REPORTED_BY]->(p:Entity {workspace: $workspace})
  MATCH (c)-[:MENTIONS]->(:Entity {workspace: $workspace})-[r:REPORTED_BY]->(p)
  RETURN r
}
WITH DISTINCT r
WHERE r.chunk_ids IS NOT NULL AND any(x IN r.chunk_ids WHERE x IN $chunk_ids)
WITH r, [i IN range(0, size(r.chunk_ids) - 1) WHERE NOT r.chunk_ids[i] IN $chunk_ids] AS keep,
     type(r) IN $capped_types AS capped,
     size([i IN range(0, size(r.chunk_ids) - 1) WHERE coalesce(r.evidence[i], '') = '']) AS implied_before
WITH r, capped, capped AND implied_before >= $cap AS refill, [i IN keep | r.chunk_ids[i]] AS ids,
     CASE WHEN r.evidence IS NULL THEN null ELSE [i IN keep | coalesce(r.evidence[i], '')] END AS evidence
WITH r, capped, refill, ids, evidence,
     [i IN range(0, size(ids) - 1) WHERE evidence IS NOT NULL AND evidence[i] <> '' | ids[i]] AS stated
CALL (r, refill, ids, stated) {
  WITH r, ids, stated
  WHERE refill
  CALL (r, ids, stated) {
    CALL (r, ids, stated) {
      UNWIND ids AS id
      WITH id WHERE NOT id IN stated
      RETURN id
      UNION
      WITH startNode(r) AS subject, endNode(r) AS target, stated
      MATCH (subject)<-[m:MENTIONS]-(c:Chunk {workspace: $workspace})<-[:HAS_CHUNK]-(d:Document {workspace: $workspace})
      WHERE m.linked IS NULL AND NOT c.id IN $chunk_ids AND NOT c.id IN stated
        AND EXISTS { (d)-[:REPORTED_BY]->(target) }  // d bound: an expand-into, not the outlet's every document
      RETURN c.id AS id
    }
    WITH id
    ORDER BY id
    LIMIT $cap
    RETURN id
    UNION
    UNWIND stated AS id
    RETURN id
  }
  WITH id
  ORDER BY id
  RETURN collect(id) AS refilled
}
WITH r, capped, ids, evidence, CASE WHEN refill THEN refilled ELSE ids END AS kept
WITH r, capped, kept,
     CASE WHEN evidence IS NULL OR kept = ids THEN evidence
       ELSE [x IN kept | coalesce(head([i IN range(0, size(ids) - 1) WHERE ids[i] = x | evidence[i]]), '')]
     END AS kept_evidence
// a capped relationship none of whose kept chunks has a sentence has no evidence list, as when first written
SET r.chunk_ids = kept,
    r.evidence = CASE WHEN capped AND NOT any(e IN kept_evidence WHERE e <> '') THEN null ELSE kept_evidence END
WITH r, kept
WHERE size(kept) = 0
DELETE r
RETURN count(r) AS removed_relationships
