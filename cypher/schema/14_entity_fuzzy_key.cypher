CREATE INDEX entity_fuzzy_key IF NOT EXISTS FOR (e:Entity) ON (e.fuzzy_key)
