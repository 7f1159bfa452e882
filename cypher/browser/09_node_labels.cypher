// Every combination of labels on nodes, with counts (an Entity carries exactly one schema label beside :Entity).
MATCH (n)
RETURN labels(n) AS labels, count(*) AS n
ORDER BY n DESC
