// The single-property constraint of stores written before workspaces; (workspace, key) replaces it (01_entity_key.cypher).
DROP CONSTRAINT entity_key IF EXISTS
