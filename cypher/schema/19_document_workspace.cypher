// A workspace's document nodes by label and workspace alone (counts, deletes): the (workspace, key) constraint's index needs both.
CREATE INDEX document_workspace IF NOT EXISTS FOR (n:Document) ON (n.workspace)
