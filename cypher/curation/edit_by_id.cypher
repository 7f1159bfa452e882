// One audit record by id.
MATCH (ed:Edit {id: $id})
RETURN properties(ed) AS edit
