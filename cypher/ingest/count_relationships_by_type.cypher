// Relationships per type, from the count store (db.stats.retrieve; a MATCH ()-[r]->() would read every one).
CALL db.stats.retrieve('GRAPH COUNTS') YIELD data
UNWIND data.relationships AS row
WITH row WHERE row.relationshipType IS NOT NULL AND row.startLabel IS NULL AND row.endLabel IS NULL AND row.count > 0
RETURN row.relationshipType AS type, row.count AS n
ORDER BY n DESC, type
