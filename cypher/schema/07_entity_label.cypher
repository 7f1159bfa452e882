CREATE INDEX entity_label IF NOT EXISTS FOR (e:Entity) ON (e.label)
