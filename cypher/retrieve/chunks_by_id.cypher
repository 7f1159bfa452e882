// The chunks behind facts (provenance), with their document metadata.
UNWIND $ids AS cid
MATCH (c:Chunk {workspace: $workspace, id: cid})
RETURN c.id AS chunk_id, c.document_id AS document_id, c.title AS title, c.source AS source,
       c.published_at AS published_at, c.locator AS locator, c.text AS text
