// Unique within a workspace: two workspaces may hold the same id.
CREATE CONSTRAINT chunk_workspace_id IF NOT EXISTS FOR (c:Chunk) REQUIRE (c.workspace, c.id) IS UNIQUE
