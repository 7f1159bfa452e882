// Every relationship type of the workspace with the labels at both ends (entity schema labels resolved from e.label).
MATCH (a)-[r]->(b)
WHERE a.workspace = $workspace
RETURN coalesce(a.label, labels(a)[0]) AS source, type(r) AS type, coalesce(b.label, labels(b)[0]) AS target,
       count(r) AS n
ORDER BY n DESC
