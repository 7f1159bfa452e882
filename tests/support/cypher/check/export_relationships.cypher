// Every relationship by type, end points (their key, id or date) and properties.
MATCH (a)-[r]->(b)
RETURN type(r) AS type, coalesce(a.key, a.id, toString(a.date)) AS source,
       coalesce(b.key, b.id, toString(b.date)) AS target, properties(r) AS props
