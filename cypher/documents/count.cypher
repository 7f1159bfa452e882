// How many documents the same filters as documents/list match.
MATCH (d:Document)
WHERE ($source IS NULL OR d.source = $source)
  AND ($published_after IS NULL OR d.published_at >= $published_after)
  AND ($published_before IS NULL OR d.published_at <= $published_before)
RETURN count(d) AS total
