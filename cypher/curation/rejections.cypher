// The rejected candidate pairs of the review queue, oldest first.
MATCH (x:RejectedPair {workspace: $workspace})
RETURN x.a AS a, x.b AS b, x.by AS by, coalesce(x.reason, '') AS reason, x.at AS at
ORDER BY x.at, x.a, x.b
