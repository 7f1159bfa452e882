// The name/alias index the alias extractor matches question spans against (loaded once, refreshed on change).
MATCH (e:Entity {workspace: $workspace})
RETURN e.key AS key, e.name AS name, e.label AS label, coalesce(e.aliases, []) AS aliases,
       COUNT { (e)<-[:MENTIONS]-() } AS mentions
