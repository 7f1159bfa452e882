// Reject a candidate pair ($a < $b): the review queue never proposes it again. No relationships: retrieval never sees it.
MERGE (x:RejectedPair {workspace: $workspace, a: $a, b: $b})
SET x.by = $by, x.reason = $reason, x.at = $at
RETURN x.a AS a, x.b AS b, x.by AS by, x.reason AS reason, x.at AS at
