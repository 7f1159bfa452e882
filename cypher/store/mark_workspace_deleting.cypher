// The first step of deleting $workspace (core/stores/workspace_registry.py): its entry says so, and keeps saying so
// until the last step removes it, so a delete cut short is found and finished (`deleting_workspaces`) and no writer
// opens on it meanwhile (`register_workspace`). Marking it again keeps the first time and caller.
MERGE (w:Workspace {workspace: $workspace})
  ON CREATE SET w.created_at = datetime()
SET w.deleting = coalesce(w.deleting, datetime()), w.deleted_by = coalesce(w.deleted_by, $by)
RETURN toString(w.deleting) AS deleting_since
