// The single-property constraint of stores written before workspaces; (workspace, id) replaces it (15_writer_lease.cypher).
DROP CONSTRAINT writer_lease_id IF EXISTS
