// Node counts per label and relationship counts per type (GET /v1/graph/stats), read from the count store
// (db.stats.retrieve): no scan of the nodes or relationships, whatever the size of the graph. A label or type whose
// count dropped to 0 is left out.
CALL db.stats.retrieve('GRAPH COUNTS') YIELD data
CALL (data) {
  UNWIND data.nodes AS row
  WITH row WHERE row.label IS NOT NULL AND row.count > 0
  RETURN 'label' AS kind, row.label AS name, row.count AS count
  UNION ALL
  UNWIND data.relationships AS row
  WITH row WHERE row.relationshipType IS NOT NULL AND row.startLabel IS NULL AND row.endLabel IS NULL AND row.count > 0
  RETURN 'type' AS kind, row.relationshipType AS name, row.count AS count
}
RETURN kind, name, count
ORDER BY kind, name
