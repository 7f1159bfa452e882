// A document's chunks and the entities each chunk mentions (graph view). Set: :param document_id => '<url or id>'
MATCH path = (d:Document {id: $document_id})-[:HAS_CHUNK]->(c:Chunk)
OPTIONAL MATCH mention = (c)-[:MENTIONS]->(e:Entity)
OPTIONAL MATCH outlet = (d)-[:REPORTED_BY]->(:Publication)
OPTIONAL MATCH day = (d)-[:PUBLISHED_ON]->(:Date)
RETURN path, mention, outlet, day
