// Imported relationships that carry no provenance lists (HAS_CHUNK, MENTIONS, PUBLISHED_ON, NEXT_DAY, a document's
// REPORTED_BY): one per (start, type, end), the file's properties replacing the stored ones of the same name. Ends are
// found by kind and key; entity facts go through cypher/ingest/merge_relations.cypher, which joins provenance.
UNWIND $rows AS r
CALL (r) {
  MATCH (s:Entity {key: r.start_key}) WHERE r.start_kind = 'Entity' RETURN s
  UNION
  MATCH (s:Document {id: r.start_key}) WHERE r.start_kind = 'Document' RETURN s
  UNION
  MATCH (s:Chunk {id: r.start_key}) WHERE r.start_kind = 'Chunk' RETURN s
  UNION
  MATCH (s:Date {date: r.start_key}) WHERE r.start_kind = 'Date' RETURN s
}
CALL (r) {
  MATCH (t:Entity {key: r.end_key}) WHERE r.end_kind = 'Entity' RETURN t
  UNION
  MATCH (t:Document {id: r.end_key}) WHERE r.end_kind = 'Document' RETURN t
  UNION
  MATCH (t:Chunk {id: r.end_key}) WHERE r.end_kind = 'Chunk' RETURN t
  UNION
  MATCH (t:Date {date: r.end_key}) WHERE r.end_kind = 'Date' RETURN t
}
MERGE (s)-[x:$(r.type)]->(t)
SET x += r.props
