"""People fix the graph: merge, rename, relabel, aliases, deletes and added facts, each previewed, audited and undoable.

`snapshot.py` reads and writes the part of the graph an edit touches (the entities and every relationship at them),
`edits.py` computes an edit's result from that snapshot (pure, no I/O), `service.py` is the one door every surface
(HTTP, CLI, Python API) calls: preview (dry run), apply (one write transaction under the writer lock, with its `:Edit`
audit record), undo and the log. See docs/curation.md.
"""
