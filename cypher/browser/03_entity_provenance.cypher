// An entity (by name or alias): its key, aliases, the chunks that mention it, and every fact with its evidence.
// Set: :param entity => 'Sam Bankman-Fried'
MATCH (e:Entity)
WHERE e.name = $entity OR $entity IN e.aliases
OPTIONAL MATCH (c:Chunk)-[m:MENTIONS]->(e)
WITH e, collect({chunk: c.id, title: c.title, count: m.count}) AS mentioned_in
OPTIONAL MATCH (e)-[r]-(other:Entity)
WHERE r.chunk_ids IS NOT NULL
RETURN e.key AS key, e.label AS label, e.aliases AS aliases, mentioned_in,
       collect({fact: type(r), other: other.name, outgoing: startNode(r) = e, chunk_ids: r.chunk_ids,
                evidence: r.evidence, extractor: r.extractor}) AS facts
