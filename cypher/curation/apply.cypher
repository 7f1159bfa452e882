// One edit in one transaction: the touched entities ($remove) and their relationships go, the edit's result ($nodes,
// $rels) is written, the audit record ($edit) created with the edit's curation rules ($rules), and, for an undo, the
// undone record marked and its rules removed. A kill leaves the old state or the new one. Ends are found by entity
// key, chunk id or document id.
CALL () {
  UNWIND $remove AS key
  MATCH (e:Entity {key: key})
  DETACH DELETE e
}
CALL () {
  UNWIND $nodes AS n
  CREATE (e:Entity)
  SET e = n.props
  SET e:$(n.labels)
}
CALL () {
  UNWIND $rels AS r
  CALL (r) {
    MATCH (s:Entity {key: r.start_id}) WHERE r.start_kind = 'Entity' RETURN s
    UNION
    MATCH (s:Chunk {id: r.start_id}) WHERE r.start_kind = 'Chunk' RETURN s
    UNION
    MATCH (s:Document {id: r.start_id}) WHERE r.start_kind = 'Document' RETURN s
  }
  CALL (r) {
    MATCH (t:Entity {key: r.end_id}) WHERE r.end_kind = 'Entity' RETURN t
    UNION
    MATCH (t:Chunk {id: r.end_id}) WHERE r.end_kind = 'Chunk' RETURN t
    UNION
    MATCH (t:Document {id: r.end_id}) WHERE r.end_kind = 'Document' RETURN t
  }
  CREATE (s)-[x:$(r.type)]->(t)
  SET x = r.props
}
CALL () {
  UNWIND $rules AS rule
  CREATE (x:CurationRule)
  SET x = rule
}
CALL () {
  MATCH (x:CurationRule {edit_id: $undoes})
  DELETE x
}
CREATE (ed:Edit)
SET ed = $edit
WITH ed
OPTIONAL MATCH (undone:Edit {id: $undoes})
SET undone.undone_by = ed.id
RETURN ed.id AS id
