// Imported Chunk nodes by id (ingest/exchange/writer.py): the file's properties replace the stored ones of the
// same name.
UNWIND $rows AS row
MERGE (n:Chunk {workspace: $workspace, id: row.key})
SET n += row.props
