// The corpus's `source` values and the publisher nodes their documents point at (the outlet gazetteer's input, and
// the sources through which retrieve/candidates finds a publisher's documents).
MATCH (d:Document {workspace: $workspace})
WHERE d.source IS NOT NULL
OPTIONAL MATCH (d)-[:REPORTED_BY]->(p:Entity)
WITH d.source AS source, collect(DISTINCT p.key) AS keys
RETURN source, keys
ORDER BY source
