// A cheap graph version for the PPR snapshot cache: count-store counts plus the optional (:GraphMeta) version
// that ingestion may bump on every write.
CALL { MATCH (e:Entity) RETURN count(e) AS entities }
CALL { MATCH (c:Chunk) RETURN count(c) AS chunks }
CALL { MATCH ()-[m:MENTIONS]->() RETURN count(m) AS mentions }
CALL { MATCH ()-[r]->() RETURN count(r) AS relationships }
CALL { OPTIONAL MATCH (g:GraphMeta) RETURN max(g.version) AS version }
RETURN entities, chunks, mentions, relationships, version
