// What one outlet covered, by day, with the entities its documents mention most. Set: :param publication => 'TechCrunch'
MATCH (p:Publication {workspace: $workspace})
WHERE p.name = $publication OR $publication IN p.aliases
MATCH (d:Document {workspace: $workspace})-[:REPORTED_BY]->(p)
OPTIONAL MATCH (d)-[:HAS_CHUNK]->(:Chunk {workspace: $workspace})-[:MENTIONS]->(e:Entity {workspace: $workspace})
WITH p, d, collect(DISTINCT e.name)[..8] AS entities
RETURN p.name AS publication, d.published_at AS published, d.title AS title, entities
ORDER BY published, title
