// db check --repair: drop the chunk ids of chunks the graph does not have from every relationship's provenance
// (with their evidence); relationships left with none are deleted.
// A full capped relationship ($capped_types, $cap: ingest/provenance.py) that loses an implied entry is refilled as
// ingest/remove_chunk_provenance.cypher refills one: its stated entries, and the $cap smallest ids of the chunks that
// still imply it (its remaining implied entries, and chunks that mention its subject, tagger MENTIONS, in a document
// REPORTED_BY its target), refilled entries with evidence ''. Without it the list would stay short of what a clean
// ingest writes.
MATCH (:Entity {workspace: $workspace})-[r]->(:Entity {workspace: $workspace})
WHERE r.chunk_ids IS NULL OR size(r.chunk_ids) = 0
   OR any(cid IN r.chunk_ids WHERE NOT EXISTS { MATCH (:Chunk {workspace: $workspace, id: cid}) })
WITH r, coalesce(r.chunk_ids, []) AS ids
WITH r, ids, [i IN range(0, size(ids) - 1) WHERE EXISTS { MATCH (:Chunk {workspace: $workspace, id: ids[i]}) }] AS keep,
     [i IN range(0, size(ids) - 1) WHERE coalesce(r.evidence[i], '') = ''] AS implied
WITH r, type(r) IN $capped_types AS capped, [i IN keep | ids[i]] AS kept,
     CASE WHEN r.evidence IS NULL THEN null ELSE [i IN keep | coalesce(r.evidence[i], '')] END AS evidence,
     size(implied) >= $cap AND any(i IN implied WHERE NOT i IN keep) AS full_and_short
WITH r, capped, capped AND full_and_short AS refill, kept, evidence,
     [i IN range(0, size(kept) - 1) WHERE evidence IS NOT NULL AND evidence[i] <> '' | kept[i]] AS stated
CALL (r, refill, kept, stated) {
  WITH r, kept, stated
  WHERE refill
  CALL (r, kept, stated) {
    CALL (r, kept, stated) {
      UNWIND kept AS id
      WITH id WHERE NOT id IN stated
      RETURN id
      UNION
      WITH startNode(r) AS subject, endNode(r) AS target, stated
      MATCH (subject)<-[m:MENTIONS]-(c:Chunk {workspace: $workspace})<-[:HAS_CHUNK]-(d:Document {workspace: $workspace})
      WHERE m.linked IS NULL AND NOT c.id IN stated AND EXISTS { (d)-[:REPORTED_BY]->(target) }
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
WITH r, capped, kept, evidence, CASE WHEN refill THEN refilled ELSE kept END AS ids
WITH r, capped, ids,
     CASE WHEN evidence IS NULL OR ids = kept THEN evidence
       ELSE [x IN ids | coalesce(head([i IN range(0, size(kept) - 1) WHERE kept[i] = x | evidence[i]]), '')]
     END AS ids_evidence
SET r.chunk_ids = ids,
    r.evidence = CASE WHEN capped AND NOT any(e IN ids_evidence WHERE e <> '') THEN null ELSE ids_evidence END
WITH r, ids
WITH collect(CASE WHEN size(ids) = 0 THEN r END) AS empty, count(r) AS repaired
FOREACH (r IN empty | DELETE r)
RETURN repaired, size(empty) AS deleted
