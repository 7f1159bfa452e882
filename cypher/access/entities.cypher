// Who may see each of $keys (retrieval/access.py `AccessMap.entity_access`): `open` when an open chunk (access
// null) mentions it or an open document is reported by it, else the distinct access lists of the chunks that
// mention it and the documents reported by it (none: only a reader of everything sees it).
UNWIND $keys AS k
MATCH (e:Entity {workspace: $workspace, key: k})
RETURN k AS key,
       EXISTS { MATCH (e)<-[:MENTIONS]-(c:Chunk) WHERE c.access IS NULL }
         OR EXISTS { MATCH (e)<-[:REPORTED_BY]-(d:Document) WHERE d.access IS NULL } AS open,
       COLLECT { MATCH (e)<-[:MENTIONS]-(c:Chunk) WHERE c.access IS NOT NULL RETURN DISTINCT c.access }
         + COLLECT { MATCH (e)<-[:REPORTED_BY]-(d:Document) WHERE d.access IS NOT NULL RETURN DISTINCT d.access }
         AS lists
