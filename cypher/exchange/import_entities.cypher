// Imported entities by key (ingest/exchange/writer.py): scalar properties from the file, the schema label set
// dynamically, and aliases and lookup keys joined with those the store has (the stored ones first).
UNWIND $rows AS row
MERGE (e:Entity {workspace: $workspace, key: row.key})
WITH e, row, properties(e) AS old
SET e += row.props
SET e:$(row.label)
SET e.aliases = CASE WHEN row.props.aliases IS NULL THEN old.aliases
                  ELSE coalesce(old.aliases, []) + [a IN row.props.aliases WHERE NOT a IN coalesce(old.aliases, [])] END,
    e.resolve_keys = CASE WHEN row.props.resolve_keys IS NULL THEN old.resolve_keys
                  ELSE coalesce(old.resolve_keys, []) +
                       [k IN row.props.resolve_keys WHERE NOT k IN coalesce(old.resolve_keys, [])] END,
    e.link_keys = CASE WHEN row.props.link_keys IS NULL THEN old.link_keys
                  ELSE coalesce(old.link_keys, []) + [k IN row.props.link_keys WHERE NOT k IN coalesce(old.link_keys, [])]
                  END
