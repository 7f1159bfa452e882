// The single-property constraint of stores written before workspaces; (workspace, id) replaces it (02_document_id.cypher).
DROP CONSTRAINT document_id IF EXISTS
