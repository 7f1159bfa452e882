// One page of documents, newest first (undated last), filtered by corpus source and publication date
// (ISO strings compare as dates), readable by $readers (null: every document; else those whose access is null or
// names one of them). Each with its number of chunks.
MATCH (d:Document {workspace: $workspace})
WHERE ($source IS NULL OR d.source = $source)
  AND ($published_after IS NULL OR d.published_at >= $published_after)
  AND ($published_before IS NULL OR d.published_at <= $published_before)
  AND ($readers IS NULL OR d.access IS NULL OR any(name IN d.access WHERE name IN $readers))
RETURN d.id AS id, d.title AS title, d.source AS source, d.published_at AS published, d.url AS url,
       COUNT { (d)-[:HAS_CHUNK]->(:Chunk {workspace: $workspace}) } AS chunks
ORDER BY coalesce(d.published_at, '') DESC, d.title, d.id
SKIP $offset
LIMIT $limit
