// $n Entity nodes with keys k1..kn in workspace $workspace, for planner estimates
UNWIND range(1, $n) AS i
CREATE (:Entity {workspace: $workspace, key: 'k' + toString(i), name: 'k' + toString(i)})
