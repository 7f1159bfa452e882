// The single-property constraint of stores written before workspaces; (workspace, date) replaces it (04_date_key.cypher).
DROP CONSTRAINT date_key IF EXISTS
