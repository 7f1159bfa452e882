// Entities per schema label in the workspace, by a scan of its entities (a store shared with other workspaces: the
// count store counts them all).
MATCH (e:Entity {workspace: $workspace})
WITH e.label AS label, count(*) AS n
RETURN label, n
ORDER BY n DESC, label
