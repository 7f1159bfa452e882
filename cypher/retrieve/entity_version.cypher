// Cheap change detector for the cached name index (count store lookups).
RETURN COUNT { (:Entity) } AS entities, COUNT { ()-[:MENTIONS]->() } AS mentions
