// Which of the given document ids are stored already (the audit of a document job: added or replaced); one index
// seek per id (the Document id constraint).
UNWIND $ids AS id
MATCH (d:Document {workspace: $workspace, id: id})
RETURN d.id AS id
