// Imported Date nodes by date (ingest/exchange/writer.py): the file's properties replace the stored ones of the
// same name.
UNWIND $rows AS row
MERGE (n:Date {workspace: $workspace, date: row.key})
SET n += row.props
