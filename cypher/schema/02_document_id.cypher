// Unique within a workspace: two workspaces may hold the same id.
CREATE CONSTRAINT document_workspace_id IF NOT EXISTS FOR (d:Document) REQUIRE (d.workspace, d.id) IS UNIQUE
