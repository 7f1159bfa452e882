// Unique within a workspace: two workspaces may hold the same key.
CREATE CONSTRAINT entity_workspace_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.workspace, e.key) IS UNIQUE
