// The extractor that wrote each committed document ("offline", "llm:<model>"; null when written before it was kept).
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS id, d.extractor AS extractor
