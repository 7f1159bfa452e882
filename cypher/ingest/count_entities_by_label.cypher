MATCH (e:Entity)
RETURN e.label AS label, count(*) AS n
ORDER BY n DESC, label
