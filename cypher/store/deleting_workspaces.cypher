// Every workspace whose delete was begun and not finished (a process stopped during it): the API finishes them as it
// starts, `graphwire workspace list` shows them.
MATCH (w:Workspace)
WHERE w.deleting IS NOT NULL
RETURN w.workspace AS workspace
ORDER BY workspace
