// The extractor that wrote each committed document ("offline", "llm:<model>"; null when written before it was kept).
UNWIND $ids AS id
MATCH (d:Document {workspace: $workspace, id: id})
RETURN d.id AS id, d.extractor AS extractor
