// An entity (by name or alias): its key, aliases, the chunks that mention it, and every fact with its evidence.
// Typed facts with an evidence sentence come first, then those without, then the REPORTED_BY outlet links.
// Set: :param entity => 'Ada Park'
MATCH (e:Entity {workspace: $workspace})
WHERE e.name = $entity OR $entity IN e.aliases
OPTIONAL MATCH (c:Chunk {workspace: $workspace})-[m:MENTIONS]->(e)
WITH e, m, c
ORDER BY m.count DESC, c.id
WITH e, collect({chunk: c.id, title: c.title, count: m.count}) AS mentioned_in
OPTIONAL MATCH (e)-[r]-(other:Entity {workspace: $workspace})
WHERE r.chunk_ids IS NOT NULL
WITH e, mentioned_in, r, other,
     CASE WHEN type(r) = 'REPORTED_BY' THEN 2
          WHEN any(sentence IN coalesce(r.evidence, []) WHERE sentence <> '') THEN 0
          ELSE 1 END AS rank
ORDER BY rank, type(r), other.name
RETURN e.key AS key, e.label AS label, e.aliases AS aliases, mentioned_in,
       collect({fact: type(r), other: other.name, outgoing: startNode(r) = e, chunk_ids: r.chunk_ids,
                evidence: r.evidence, extractor: r.extractor}) AS facts
