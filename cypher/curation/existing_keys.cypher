// Which of $keys are entity keys of the graph (rules naming the others no longer apply).
UNWIND $keys AS key
MATCH (e:Entity {workspace: $workspace, key: key})
RETURN e.key AS key
