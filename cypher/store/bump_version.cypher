// A writer committed a change: give the store a new version stamp (core/stores/store_version.py).
MERGE (v:StoreVersion {workspace: $workspace, id: 'store'})
SET v.stamp = $stamp, v.changed_at = datetime()
