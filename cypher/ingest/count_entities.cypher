// How many entities the workspace has (a count of its workspace index).
RETURN COUNT { (:Entity {workspace: $workspace}) } AS entities
