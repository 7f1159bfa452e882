// A document's chunks and the entities each chunk mentions (graph view). Set: :param document_id => '<url or id>'
MATCH path = (d:Document {workspace: $workspace, id: $document_id})-[:HAS_CHUNK]->(c:Chunk {workspace: $workspace})
OPTIONAL MATCH mention = (c)-[:MENTIONS]->(e:Entity {workspace: $workspace})
OPTIONAL MATCH outlet = (d)-[:REPORTED_BY]->(:Publication {workspace: $workspace})
OPTIONAL MATCH day = (d)-[:PUBLISHED_ON]->(:Date {workspace: $workspace})
RETURN path, mention, outlet, day
