// The properties of imported entity facts besides their provenance (written by cypher/ingest/merge_relations.cypher).
UNWIND $rows AS row
MATCH (:Entity {workspace: $workspace, key: row.source})-[r:$(row.type)]->(:Entity {workspace: $workspace, key: row.target})
SET r += row.props
