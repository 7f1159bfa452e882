// GET /v1/graph/path with max_hops = 4 (a variable-length bound cannot be a parameter: one file per bound).
// Only entity-entity relationships, never through the types in $exclude_types (e.g. REPORTED_BY hubs).
MATCH (a:Entity {workspace: $workspace, key: $source}), (b:Entity {workspace: $workspace, key: $target})
MATCH p = shortestPath((a)-[*..4]-(b))
WHERE all(n IN nodes(p) WHERE n:Entity) AND none(r IN relationships(p) WHERE type(r) IN $exclude_types)
RETURN [n IN nodes(p) | {key: n.key, name: n.name, label: n.label}] AS nodes,
       [r IN relationships(p) | {relationship: type(r), subject_key: startNode(r).key, object_key: endNode(r).key,
                                 chunk_ids: coalesce(r.chunk_ids, []), evidence: coalesce(r.evidence, [])}] AS hops
