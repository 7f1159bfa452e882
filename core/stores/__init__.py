"""Store coordination: the writer lock and lease, the store's version stamp, the write session every writer
walks through, caches refreshed on that stamp, whether a pid still runs, and the schema bootstrap."""
