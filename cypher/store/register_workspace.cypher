// Enter $workspace in the registry, or find it there (core/stores/workspace_registry.py): `graphwire workspace create`,
// POST /v1/workspaces and every writer as it opens (core/stores/write_session.py), so a workspace exists from its
// creation or first write until it is deleted, with or without documents. datetime() is the statement's clock, so
// `created` is true only for the call that made the entry.
MERGE (w:Workspace {workspace: $workspace})
  ON CREATE SET w.created_at = datetime(), w.created_by = $by
RETURN w.created_at = datetime() AS created, w.deleting IS NOT NULL AS deleting
