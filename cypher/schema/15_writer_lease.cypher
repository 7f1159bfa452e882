// Unique within a workspace: two workspaces may hold the same id.
CREATE CONSTRAINT writer_lease_workspace_id IF NOT EXISTS FOR (l:WriterLease) REQUIRE (l.workspace, l.id) IS UNIQUE
