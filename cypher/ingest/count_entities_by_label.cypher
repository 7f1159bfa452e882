// Entities per schema label, from the count store (db.stats.retrieve; no scan of the entities): the node count of
// every label, other than Entity itself, that MENTIONS or REPORTED_BY relationships end at (an entity is mentioned
// by a chunk or is a document's publication; nothing else is).
CALL db.stats.retrieve('GRAPH COUNTS') YIELD data
WITH data, [m IN data.relationships WHERE m.relationshipType IN ['MENTIONS', 'REPORTED_BY'] AND m.endLabel IS NOT NULL
            AND m.endLabel <> 'Entity' AND m.count > 0 | m.endLabel] AS labels
UNWIND data.nodes AS row
WITH row WHERE row.label IN labels AND row.count > 0
RETURN row.label AS label, row.count AS n
ORDER BY n DESC, label
