// db check --repair: cut the capped relationships store/overfull_provenance.cypher finds to the capped form
// (ingest/provenance.py keep_capped): every stated entry and the $cap smallest ids of the implied ones, sorted by id,
// evidence parallel (none when no entry is stated). A list over the cap held every chunk that implied it when it was
// written, so its own smallest implied ids are the smallest there are.
MATCH (:Entity {workspace: $workspace})-[r]->(:Entity {workspace: $workspace})
WHERE type(r) IN $capped_types AND size(r.chunk_ids) > $cap
  AND size([i IN range(0, size(r.chunk_ids) - 1) WHERE coalesce(r.evidence[i], '') = '']) > $cap
WITH r, r.chunk_ids AS ids, [i IN range(0, size(r.chunk_ids) - 1) | coalesce(r.evidence[i], '')] AS evidence
CALL (ids, evidence) {
  UNWIND range(0, size(ids) - 1) AS i
  WITH i WHERE evidence[i] = ''
  WITH i ORDER BY ids[i]
  LIMIT $cap
  RETURN i
  UNION
  UNWIND range(0, size(ids) - 1) AS i
  WITH i WHERE evidence[i] <> ''
  RETURN i
}
WITH r, ids, evidence, i ORDER BY ids[i]
WITH r, collect(ids[i]) AS kept, collect(evidence[i]) AS kept_evidence
SET r.chunk_ids = kept,
    r.evidence = CASE WHEN any(e IN kept_evidence WHERE e <> '') THEN kept_evidence ELSE null END
RETURN count(r) AS trimmed
