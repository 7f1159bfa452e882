// Every node with its labels and properties (tests/support/crash.py compares whole stores).
MATCH (n)
WHERE NOT n:StoreVersion
RETURN labels(n) AS labels, properties(n) AS props
