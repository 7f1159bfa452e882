// The registry of workspaces (core/stores/workspace_registry.py): one entry per workspace.
CREATE CONSTRAINT workspace_registry IF NOT EXISTS FOR (w:Workspace) REQUIRE w.workspace IS UNIQUE
