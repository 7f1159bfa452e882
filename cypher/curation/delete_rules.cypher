// Curation rules removed by id (`graphwire db check --repair` drops those that no longer apply).
MATCH (x:CurationRule {workspace: $workspace})
WHERE x.id IN $ids
DELETE x
RETURN count(*) AS deleted
