// Which of the nodes an import file names the store has already, with their label ($nodes: {kind, key}).
UNWIND $nodes AS node
CALL (node) {
  MATCH (n:Entity {workspace: $workspace, key: node.key}) WHERE node.kind = 'Entity' RETURN n.label AS label
  UNION
  MATCH (n:Document {workspace: $workspace, id: node.key}) WHERE node.kind = 'Document' RETURN 'Document' AS label
  UNION
  MATCH (n:Chunk {workspace: $workspace, id: node.key}) WHERE node.kind = 'Chunk' RETURN 'Chunk' AS label
  UNION
  MATCH (n:Date {workspace: $workspace, date: node.key}) WHERE node.kind = 'Date' RETURN 'Date' AS label
}
RETURN node.kind AS kind, node.key AS key, label
