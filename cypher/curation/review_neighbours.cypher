// The entities both ends of each candidate pair are related to (the outlet hub left out), a few names and the count.
UNWIND $pairs AS pair
MATCH (a:Entity {workspace: $workspace, key: pair.a}), (b:Entity {workspace: $workspace, key: pair.b})
OPTIONAL MATCH (a)--(n:Entity {workspace: $workspace})--(b)
  WHERE n <> a AND n <> b AND NOT $skip_label IN labels(n)
WITH pair, collect(DISTINCT n.name) AS names
RETURN pair.a AS a, pair.b AS b, size(names) AS shared, [x IN names WHERE x IS NOT NULL][..$names] AS names
