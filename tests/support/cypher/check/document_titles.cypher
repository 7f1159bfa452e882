// Every document title.
MATCH (d:Document)
RETURN d.title AS title
