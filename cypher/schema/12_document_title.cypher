CREATE INDEX document_title IF NOT EXISTS FOR (d:Document) ON (d.title)
