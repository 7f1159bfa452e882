CREATE INDEX entity_norm IF NOT EXISTS FOR (e:Entity) ON (e.norm)
