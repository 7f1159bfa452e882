// A cheap graph version for the PPR snapshot cache (count-store lookups): changes whenever entities, chunks,
// MENTIONS or any relationships are added or removed. Counted over every workspace (the count store knows no
// workspace): a write to another workspace costs a needless rebuild here, never a stale one.
RETURN COUNT { (:Entity) } AS entities, COUNT { (:Chunk) } AS chunks, COUNT { ()-[:MENTIONS]->() } AS mentions,
       COUNT { ()-[]->() } AS relationships
