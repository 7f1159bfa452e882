// Every node with its labels and properties (tests/support/crash.py compares whole stores); not the store's version
// stamp, nor a writer lease a killed run left to expire, nor the workspaces' registry entries (the first writer of a
// workspace makes its entry).
MATCH (n)
WHERE NOT n:StoreVersion AND NOT n:WriterLease AND NOT n:Workspace
RETURN labels(n) AS labels, properties(n) AS props
