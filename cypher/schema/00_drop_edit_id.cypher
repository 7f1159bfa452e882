// The single-property constraint of stores written before workspaces; (workspace, id) replaces it (16_edit_id.cypher).
DROP CONSTRAINT edit_id IF EXISTS
