// Typed relationships between entities the graph may already have (dynamic type, Cypher 5.26): new chunk ids are
// appended to the provenance. chunk_ids and evidence are parallel lists; a relationship no sentence states (the
// REPORTED_BY inferred from a chunk's publication) has no evidence list, and gets one ('' for the older chunks) the
// first time a row brings a sentence.
// A row with a `cap` (a `provenance: inferred` type, ingest/provenance.py) keeps, of old + new, every entry a sentence
// states and the cap smallest ids of the others, sorted, evidence parallel (null when no kept entry has a sentence):
// the same list whatever order the chunks came in. The stored list then holds at most cap implied entries, so the
// `NOT x IN old` look-ups stay bounded.
UNWIND $rows AS row
MATCH (a:Entity {workspace: $workspace, key: row.source})
MATCH (b:Entity {workspace: $workspace, key: row.target})
MERGE (a)-[r:$(row.type)]->(b)
WITH r, row, coalesce(r.chunk_ids, []) AS old
WITH r, row, old, [i IN range(0, size(row.chunk_ids) - 1) WHERE NOT row.chunk_ids[i] IN old] AS fresh
WITH r, row, old + [i IN fresh | row.chunk_ids[i]] AS ids,
     CASE
       WHEN r.evidence IS NULL AND row.evidence IS NULL THEN null
       ELSE coalesce(r.evidence, [x IN old | '']) + [i IN fresh | coalesce(row.evidence[i], '')]
     END AS evidence
CALL (row, ids, evidence) {
  UNWIND CASE WHEN row.cap IS NULL THEN [] ELSE range(0, size(ids) - 1) END AS i
  WITH i
  ORDER BY ids[i]
  WITH collect(i) AS ranked
  WITH ranked, [i IN ranked WHERE evidence IS NULL OR evidence[i] = ''][0..coalesce(row.cap, 0)] AS implied
  RETURN [i IN ranked WHERE (evidence IS NOT NULL AND evidence[i] <> '') OR i IN implied] AS smallest
}
WITH r, row, ids, evidence, smallest
WITH r, row,
     CASE WHEN row.cap IS NULL THEN ids ELSE [i IN smallest | ids[i]] END AS chunk_ids,
     CASE
       WHEN row.cap IS NULL OR evidence IS NULL THEN evidence
       WHEN any(i IN smallest WHERE evidence[i] <> '') THEN [i IN smallest | evidence[i]]
     END AS kept_evidence
SET r.chunk_ids = chunk_ids, r.evidence = kept_evidence, r.extractor = row.extractor
