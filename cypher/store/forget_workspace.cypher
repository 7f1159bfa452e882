// The last step of deleting $workspace: its registry entry, once everything else of it is gone.
MATCH (w:Workspace {workspace: $workspace})
DELETE w
RETURN count(w) AS forgotten
