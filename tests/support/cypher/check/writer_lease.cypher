// The store's writer lease, if any (tests/integration/test_writer_lease.py).
MATCH (l:WriterLease {workspace: $workspace})
RETURN l.owner AS owner, l.host AS host, l.pid AS pid, l.purpose AS purpose
