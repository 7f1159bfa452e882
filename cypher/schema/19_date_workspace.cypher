// A workspace's date nodes by label and workspace alone (counts, deletes): the (workspace, key) constraint's index needs both.
CREATE INDEX date_workspace IF NOT EXISTS FOR (n:Date) ON (n.workspace)
