// The whole walk graph in one read, for the PPR snapshot: one row per entity, per MENTIONS and per entity-entity
// relationship (those with chunk_ids, i.e. extracted facts). `flag` marks a chunk's title entity: MENTIONS.title,
// or an entity named exactly like the chunk's title (title-as-entity for encyclopedia-style corpora).
MATCH (e:Entity)
RETURN 'E' AS kind, e.key AS a, e.name AS b, e.label AS type, coalesce(e.aliases, []) AS items, 0 AS weight,
       false AS flag
UNION ALL
MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity)
RETURN 'M' AS kind, c.id AS a, e.key AS b, null AS type, [] AS items, coalesce(m.count, 1) AS weight,
       (coalesce(m.title, false) OR (c.title IS NOT NULL AND toLower(c.title) = toLower(e.name))) AS flag
UNION ALL
MATCH (s:Entity)-[r]->(t:Entity)
WHERE r.chunk_ids IS NOT NULL
RETURN 'R' AS kind, s.key AS a, t.key AS b, type(r) AS type, r.chunk_ids AS items, 0 AS weight, false AS flag
