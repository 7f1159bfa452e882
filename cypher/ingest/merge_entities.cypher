// Entities by key; the schema label is set dynamically (Cypher 5.26), aliases and lookup keys only grow
// (ingest/entity_lookup.py: each key comes from one alias, so the union of old and new keys is the entity's).
// A new entity is marked orphan_check until the run's sweep (ingest/pending.py) sees it mentioned: a run killed
// between writing it and its MENTIONS, followed by a change that no longer names it, would otherwise leave it.
UNWIND $rows AS row
MERGE (e:Entity {workspace: $workspace, key: row.key})
ON CREATE SET e.name = row.name, e.norm = row.norm, e.label = row.label, e.aliases = [], e.resolve_keys = [],
              e.link_keys = [], e.fuzzy_key = row.fuzzy_key, e.orphan_check = true
SET e:$(row.label)
SET e.aliases = e.aliases + [a IN row.aliases WHERE NOT a IN e.aliases],
    e.resolve_keys = coalesce(e.resolve_keys, []) + [k IN row.resolve_keys WHERE NOT k IN coalesce(e.resolve_keys, [])],
    e.link_keys = coalesce(e.link_keys, []) + [k IN row.link_keys WHERE NOT k IN coalesce(e.link_keys, [])]
