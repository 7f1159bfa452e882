CREATE INDEX document_source IF NOT EXISTS FOR (d:Document) ON (d.source)
