// Node counts per label and relationship counts per type (GET /v1/graph/stats).
CALL db.labels() YIELD label
CALL (label) {
  MATCH (n:$(label))
  RETURN count(n) AS count
}
RETURN 'label' AS kind, label AS name, count
UNION ALL
CALL db.relationshipTypes() YIELD relationshipType
CALL (relationshipType) {
  MATCH ()-[r:$(relationshipType)]->()
  RETURN count(r) AS count
}
RETURN 'type' AS kind, relationshipType AS name, count
