// Which format of entity lookup properties the store's entities carry (null: written before they existed).
OPTIONAL MATCH (v:StoreVersion {workspace: $workspace, id: 'store'})
RETURN v.lookup_format AS format
