CALL () { MATCH (d:Document {workspace: $workspace}) RETURN count(d) AS documents }
CALL () { MATCH (c:Chunk {workspace: $workspace}) RETURN count(c) AS chunks }
CALL () { MATCH (e:Entity {workspace: $workspace}) RETURN count(e) AS entities }
CALL () { MATCH (t:Date {workspace: $workspace}) RETURN count(t) AS dates }
RETURN documents, chunks, entities, dates
