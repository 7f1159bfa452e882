// Unique within a workspace: two workspaces may hold the same id.
CREATE CONSTRAINT store_version_workspace_id IF NOT EXISTS FOR (v:StoreVersion) REQUIRE (v.workspace, v.id) IS UNIQUE
