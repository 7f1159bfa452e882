// Stores written before workspaces: up to $limit nodes of a label that lives in a workspace, without one, join
// $workspace (`default`); core/stores/bootstrap.py repeats it until it assigns none.
MATCH (n)
WHERE n.workspace IS NULL
  AND (n:Entity OR n:Chunk OR n:Document OR n:Date OR n:Edit OR n:CurationRule OR n:StoreVersion OR n:RejectedPair
       OR n:WriterLease)
WITH n LIMIT $limit
SET n.workspace = $workspace
RETURN count(n) AS assigned
