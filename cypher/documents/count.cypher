// How many documents the same filters as documents/list match.
MATCH (d:Document {workspace: $workspace})
WHERE ($source IS NULL OR d.source = $source)
  AND ($published_after IS NULL OR d.published_at >= $published_after)
  AND ($published_before IS NULL OR d.published_at <= $published_before)
  AND ($readers IS NULL OR d.access IS NULL OR any(name IN d.access WHERE name IN $readers))
RETURN count(d) AS total
