// Imported relationships that carry no provenance lists (HAS_CHUNK, MENTIONS, PUBLISHED_ON, NEXT_DAY, a document's
// REPORTED_BY): one per (start, type, end), the file's properties replacing the stored ones of the same name. Ends are
// found by kind and key; entity facts go through cypher/ingest/merge_relations.cypher, which joins provenance.
UNWIND $rows AS r
CALL (r) {
  MATCH (s:Entity {workspace: $workspace, key: r.start_key}) WHERE r.start_kind = 'Entity' RETURN s
  UNION
  MATCH (s:Document {workspace: $workspace, id: r.start_key}) WHERE r.start_kind = 'Document' RETURN s
  UNION
  MATCH (s:Chunk {workspace: $workspace, id: r.start_key}) WHERE r.start_kind = 'Chunk' RETURN s
  UNION
  MATCH (s:Date {workspace: $workspace, date: r.start_key}) WHERE r.start_kind = 'Date' RETURN s
}
CALL (r) {
  MATCH (t:Entity {workspace: $workspace, key: r.end_key}) WHERE r.end_kind = 'Entity' RETURN t
  UNION
  MATCH (t:Document {workspace: $workspace, id: r.end_key}) WHERE r.end_kind = 'Document' RETURN t
  UNION
  MATCH (t:Chunk {workspace: $workspace, id: r.end_key}) WHERE r.end_kind = 'Chunk' RETURN t
  UNION
  MATCH (t:Date {workspace: $workspace, date: r.end_key}) WHERE r.end_kind = 'Date' RETURN t
}
MERGE (s)-[x:$(r.type)]->(t)
SET x += r.props
