// A workspace's entity nodes by label and workspace alone (counts, deletes): the (workspace, key) constraint's index needs both.
CREATE INDEX entity_workspace IF NOT EXISTS FOR (n:Entity) ON (n.workspace)
