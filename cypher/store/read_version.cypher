// The store's version stamp (core/stores/store_version.py): no row, or a null stamp, for a store never stamped.
OPTIONAL MATCH (v:StoreVersion {workspace: $workspace, id: 'store'})
RETURN v.stamp AS stamp
