// Audit records, newest first: all of them, or those touching one entity key ($key null: all).
MATCH (ed:Edit {workspace: $workspace})
WHERE $key IS NULL OR $key IN ed.keys
RETURN properties(ed) AS edit
ORDER BY ed.seq DESC
LIMIT $limit
