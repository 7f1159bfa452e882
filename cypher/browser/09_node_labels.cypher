// Every combination of labels on the workspace's nodes, with counts (an Entity carries exactly one schema label beside
// :Entity). In Neo4j Browser, set the workspace first: :param workspace => 'default'
MATCH (n)
WHERE n.workspace = $workspace
RETURN labels(n) AS labels, count(*) AS n
ORDER BY n DESC
