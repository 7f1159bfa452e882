// The whole walk graph in one read, for the PPR snapshot, grouped to keep the record count low: one row per entity,
// one per chunk (its MENTIONS) and one per entity with outgoing facts (relationships that carry chunk_ids).
// `flags` marks a chunk's title entity: MENTIONS.title, or an entity named exactly like the chunk's title; for
// MENTIONS rows `chunks` holds each mention's sentence indices (entities sharing a sentence co-occur) and `names`
// the normalised names it taught the entity ([null] for a mention written before names were recorded).
MATCH (e:Entity {workspace: $workspace})
RETURN 'E' AS kind, e.key AS a, e.name AS b, e.label AS type, coalesce(e.aliases, []) AS items, [] AS counts,
       [] AS flags, [] AS chunks, [] AS names
UNION ALL
MATCH (c:Chunk {workspace: $workspace})-[m:MENTIONS]->(e:Entity)
WITH c, collect(e.key) AS keys, collect(coalesce(m.count, 1)) AS counts,
     collect(coalesce(m.title, false) OR (c.title IS NOT NULL AND toLower(c.title) = toLower(e.name))) AS flags,
     collect(coalesce(m.sentences, [])) AS sentences, collect(coalesce(m.names, [null])) AS names
RETURN 'M' AS kind, c.id AS a, null AS b, null AS type, keys AS items, counts, flags, sentences AS chunks, names
UNION ALL
MATCH (s:Entity {workspace: $workspace})-[r]->(t:Entity)
WHERE r.chunk_ids IS NOT NULL
WITH s, collect(t.key) AS targets, collect(type(r)) AS types, collect(r.chunk_ids) AS chunks
RETURN 'R' AS kind, s.key AS a, null AS b, null AS type, targets AS items, [] AS counts, types AS flags, chunks,
       [] AS names
