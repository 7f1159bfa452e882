// What a restricted reader may see of one retrieval (retrieval/access.py): of $chunk_ids, the chunks whose `access`
// is null (everyone) or names one of $readers; of $entity_keys, the entities that a readable chunk mentions; of
// $sources, the outlets with a readable document. A chunk id the graph does not hold is not readable (fail closed).
CALL () {
  UNWIND $chunk_ids AS id
  MATCH (c:Chunk {id: id})
  WHERE c.access IS NULL OR any(name IN c.access WHERE name IN $readers)
  RETURN collect(DISTINCT c.id) AS chunks
}
CALL () {
  UNWIND $entity_keys AS k
  MATCH (e:Entity {key: k})
  WHERE EXISTS {
    MATCH (e)<-[:MENTIONS]-(c:Chunk)
    WHERE c.access IS NULL OR any(name IN c.access WHERE name IN $readers)
  }
  RETURN collect(DISTINCT e.key) AS entities
}
CALL () {
  UNWIND $sources AS s
  CALL (s) {
    MATCH (d:Document)
    WHERE d.source = s AND (d.access IS NULL OR any(name IN d.access WHERE name IN $readers))
    RETURN d.source AS source
    LIMIT 1
  }
  RETURN collect(DISTINCT source) AS sources
}
RETURN chunks, entities, sources
