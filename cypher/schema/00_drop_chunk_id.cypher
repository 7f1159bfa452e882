// The single-property constraint of stores written before workspaces; (workspace, id) replaces it (03_chunk_id.cypher).
DROP CONSTRAINT chunk_id IF EXISTS
