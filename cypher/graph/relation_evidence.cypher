// A restricted reader's neighbourhood and path views (retrieval/paths.py ScopedFacts): the supporting chunk ids and
// evidence sentences of the relationships its scope walked, named by their end nodes' keys and type, to be cut to the
// chunks it may read.
UNWIND $relations AS x
MATCH (s:Entity {workspace: $workspace, key: x.source})-[r]->(t:Entity {key: x.target})
WHERE type(r) = x.type
RETURN x.source AS source, x.type AS type, x.target AS target, coalesce(r.chunk_ids, []) AS chunk_ids,
       coalesce(r.evidence, []) AS evidence
