// A cheap graph version for the PPR snapshot cache (count-store lookups): changes whenever entities, chunks,
// MENTIONS or any relationships are added or removed.
RETURN COUNT { (:Entity) } AS entities, COUNT { (:Chunk) } AS chunks, COUNT { ()-[:MENTIONS]->() } AS mentions,
       COUNT { ()-[]->() } AS relationships
