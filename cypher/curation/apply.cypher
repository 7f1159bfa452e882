// One edit in one transaction: the touched entities ($remove) and their relationships go, the edit's result ($nodes,
// $rels) is written, the audit record ($edit) created with the edit's curation rules ($rules), and, for an undo, the
// undone record marked and its rules removed. A kill leaves the old state or the new one. Ends are found by entity
// key, chunk id or document id.
CALL () {
  UNWIND $remove AS key
  MATCH (e:Entity {workspace: $workspace, key: key})
  DETACH DELETE e
}
CALL () {
  UNWIND $nodes AS n
  CREATE (e:Entity {workspace: $workspace})
  SET e = n.props
  SET e.workspace = $workspace  // `=` replaced every property
  SET e:$(n.labels)
}
CALL () {
  UNWIND $rels AS r
  CALL (r) {
    MATCH (s:Entity {workspace: $workspace, key: r.start_id}) WHERE r.start_kind = 'Entity' RETURN s
    UNION
    MATCH (s:Chunk {workspace: $workspace, id: r.start_id}) WHERE r.start_kind = 'Chunk' RETURN s
    UNION
    MATCH (s:Document {workspace: $workspace, id: r.start_id}) WHERE r.start_kind = 'Document' RETURN s
  }
  CALL (r) {
    MATCH (t:Entity {workspace: $workspace, key: r.end_id}) WHERE r.end_kind = 'Entity' RETURN t
    UNION
    MATCH (t:Chunk {workspace: $workspace, id: r.end_id}) WHERE r.end_kind = 'Chunk' RETURN t
    UNION
    MATCH (t:Document {workspace: $workspace, id: r.end_id}) WHERE r.end_kind = 'Document' RETURN t
  }
  CREATE (s)-[x:$(r.type)]->(t)
  SET x = r.props
}
CALL () {
  UNWIND $rules AS rule
  CREATE (x:CurationRule {workspace: $workspace})
  SET x = rule
  SET x.workspace = $workspace
}
CALL () {
  MATCH (x:CurationRule {workspace: $workspace, edit_id: $undoes})
  DELETE x
}
CREATE (ed:Edit {workspace: $workspace})
SET ed = $edit
SET ed.workspace = $workspace
WITH ed
OPTIONAL MATCH (undone:Edit {workspace: $workspace, id: $undoes})
SET undone.undone_by = ed.id
RETURN ed.id AS id
