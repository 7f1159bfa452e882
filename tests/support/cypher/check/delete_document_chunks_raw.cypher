// Damage for tests/integration/test_store_repair.py: a document's chunks deleted without the pipeline (provenance,
// orphans and vectors left as they were).
MATCH (c:Chunk {workspace: $workspace, document_id: $document_id})
DETACH DELETE c
