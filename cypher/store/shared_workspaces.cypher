// Whether the store holds documents or entities of a workspace other than $workspace: the count store (db.stats)
// counts every workspace, so counts read from it are this workspace's only when it is alone.
RETURN EXISTS { MATCH (d:Document) WHERE d.workspace <> $workspace }
       OR EXISTS { MATCH (e:Entity) WHERE e.workspace <> $workspace } AS shared
