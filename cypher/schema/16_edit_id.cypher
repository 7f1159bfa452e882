// One audit record per applied edit (ingest/curation/), found by id for undo.
// Unique within a workspace: two workspaces may hold the same id.
CREATE CONSTRAINT edit_workspace_id IF NOT EXISTS FOR (e:Edit) REQUIRE (e.workspace, e.id) IS UNIQUE
