// Every curation rule, oldest first (ingest/curation/rules.py): what applied edits decided, honoured by each ingest.
MATCH (x:CurationRule {workspace: $workspace})
RETURN properties(x) AS rule
ORDER BY x.seq, x.id
