// Every entity of the store carries lookup properties of this format (ingest/entity_lookup.py).
MERGE (v:StoreVersion {workspace: $workspace, id: 'store'})
SET v.lookup_format = $format
