// $workspace as `graphwire workspace describe` and GET /v1/workspaces/{name} show it: its registry entry (none for a
// workspace written before the registry, or not at all) and what it holds.
OPTIONAL MATCH (w:Workspace {workspace: $workspace})
RETURN w IS NOT NULL AS registered, toString(w.created_at) AS created_at, w.created_by AS created_by,
       toString(w.deleting) AS deleting_since,
       COUNT { MATCH (:Document {workspace: $workspace}) } AS documents,
       COUNT { MATCH (:Chunk {workspace: $workspace}) } AS chunks,
       COUNT { MATCH (:Entity {workspace: $workspace}) } AS entities,
       COUNT { MATCH (:Entity {workspace: $workspace})-[r]->(:Entity) } AS relationships
