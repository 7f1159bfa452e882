// The lookup properties of entities an older graphwire wrote without them (ingest/entity_lookup.py, migrate).
UNWIND $rows AS row
MATCH (e:Entity {workspace: $workspace, key: row.key})
SET e.resolve_keys = row.resolve_keys, e.link_keys = row.link_keys, e.fuzzy_key = row.fuzzy_key
