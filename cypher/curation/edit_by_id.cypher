// One audit record by id.
MATCH (ed:Edit {workspace: $workspace, id: $id})
RETURN properties(ed) AS edit
