// One hop of GET /v1/graph/neighborhood: the entity-entity facts touching the frontier entities, best supported first.
// Bounded by $limit; the caller removes facts already seen at earlier hops and builds the next frontier.
UNWIND $keys AS key
MATCH (a:Entity {workspace: $workspace, key: key})-[r]-(b:Entity)
WHERE NOT type(r) IN $exclude_types
WITH DISTINCT r
WITH r, startNode(r) AS s, endNode(r) AS t
ORDER BY size(coalesce(r.chunk_ids, [])) DESC, s.name, type(r), t.name
LIMIT $limit
RETURN elementId(r) AS id, s.key AS subject_key, s.name AS subject, s.label AS subject_label, type(r) AS relationship,
       t.key AS object_key, t.name AS object, t.label AS object_label, coalesce(r.chunk_ids, []) AS chunk_ids,
       coalesce(r.evidence, []) AS evidence
