// The first step of a delete, recorded before anything is removed: a document marked `deleting` (and no longer
// complete) is finished by whichever run comes next (ingest/pending_deletes.cypher).
MATCH (d:Document {workspace: $workspace, id: $document_id})
SET d.deleting = true
REMOVE d.content_hash
