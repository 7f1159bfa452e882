CREATE INDEX document_deleting IF NOT EXISTS FOR (d:Document) ON (d.deleting)
