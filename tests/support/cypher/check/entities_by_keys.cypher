// Entities whose key is in $keys: a list parameter in an IN predicate, whose size the planner may take as a hint
MATCH (n:Entity) WHERE n.key IN $keys
RETURN n.key AS key
