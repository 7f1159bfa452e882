CREATE FULLTEXT INDEX entity_lookup IF NOT EXISTS FOR (e:Entity) ON EACH [e.resolve_keys, e.link_keys] OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}}
