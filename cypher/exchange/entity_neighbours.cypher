// One hop of a neighbourhood export: the entities joined to one of $keys by a relationship, either way.
UNWIND $keys AS key
MATCH (:Entity {key: key})--(b:Entity)
RETURN DISTINCT b.key AS key
