// One hop of a neighbourhood export: the entities joined to one of $keys by a relationship, either way.
UNWIND $keys AS key
MATCH (:Entity {workspace: $workspace, key: key})--(b:Entity {workspace: $workspace})
RETURN DISTINCT b.key AS key
