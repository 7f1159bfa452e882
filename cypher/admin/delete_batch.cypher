// One bounded step of `graphwire db reset`: the caller repeats it until it deletes nothing (no transaction holds the
// whole graph).
MATCH (n)
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
