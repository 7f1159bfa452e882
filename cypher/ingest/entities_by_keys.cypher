// Stored entities by key, and the fuzzy candidates of a batch's names by fuzzy_key (ingest/entity_lookup.py): two
// index seeks per value.
CALL () {
  UNWIND $keys AS key
  MATCH (e:Entity {workspace: $workspace, key: key})
  RETURN e
  UNION
  UNWIND $fuzzy_keys AS fk
  MATCH (e:Entity {workspace: $workspace, fuzzy_key: fk})
  RETURN e
}
RETURN e.key AS key, e.label AS label, e.name AS name, e.norm AS norm, e.aliases AS aliases
ORDER BY key
