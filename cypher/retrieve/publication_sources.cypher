// The corpus's `source` values and the Publication nodes their documents point at (the outlet gazetteer's input).
MATCH (d:Document)
WHERE d.source IS NOT NULL
OPTIONAL MATCH (d)-[:REPORTED_BY]->(p:Publication)
WITH d.source AS source, collect(DISTINCT p.key) AS keys
RETURN source, keys
ORDER BY source
