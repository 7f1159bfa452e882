// Capped relationships ($capped_types, $cap: ingest/provenance.py) holding more than $cap implied entries (evidence
// ''): written by a graphwire before the cap, or under a larger PROVENANCE_CAP.
MATCH (a:Entity {workspace: $workspace})-[r]->(b:Entity {workspace: $workspace})
WHERE type(r) IN $capped_types AND size(r.chunk_ids) > $cap
  AND size([i IN range(0, size(r.chunk_ids) - 1) WHERE coalesce(r.evidence[i], '') = '']) > $cap
RETURN a.key AS source, type(r) AS type, b.key AS target
ORDER BY source, type, target
LIMIT $limit
