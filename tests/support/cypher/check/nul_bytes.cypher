// Nodes holding $nul (a NUL byte) in any string or string-list property: ingestion must never store one.
MATCH (n)
WHERE any(k IN keys(n) WHERE (n[k] IS :: STRING AND n[k] CONTAINS $nul)
                          OR (n[k] IS :: LIST<STRING> AND any(x IN n[k] WHERE x CONTAINS $nul)))
RETURN count(n) AS n
