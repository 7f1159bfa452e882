// Unique within a workspace: two workspaces may hold the same date.
CREATE CONSTRAINT date_workspace_key IF NOT EXISTS FOR (d:Date) REQUIRE (d.workspace, d.date) IS UNIQUE
