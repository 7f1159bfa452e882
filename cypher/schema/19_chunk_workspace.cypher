// A workspace's chunk nodes by label and workspace alone (counts, deletes): the (workspace, key) constraint's index needs both.
CREATE INDEX chunk_workspace IF NOT EXISTS FOR (n:Chunk) ON (n.workspace)
