// Take back the rejection of a candidate pair ($a < $b): the review queue may propose it again.
MATCH (x:RejectedPair {workspace: $workspace, a: $a, b: $b})
DELETE x
RETURN count(*) AS removed
