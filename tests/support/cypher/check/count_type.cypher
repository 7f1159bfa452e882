// Relationships of one type, counted independently of GET /v1/graph/stats.
MATCH ()-[r:$($type)]->()
RETURN count(r) AS n
