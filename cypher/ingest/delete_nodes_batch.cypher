MATCH (n)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(n) AS deleted
