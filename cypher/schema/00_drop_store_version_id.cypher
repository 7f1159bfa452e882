// The single-property constraint of stores written before workspaces; (workspace, id) replaces it (09_store_version.cypher).
DROP CONSTRAINT store_version_id IF EXISTS
