CREATE INDEX entity_orphan_check IF NOT EXISTS FOR (e:Entity) ON (e.orphan_check)
