// Entities of one label whose names share a normalised prefix: where resolution may have missed a merge.
// Set: :param label => 'Person'
MATCH (e:Entity {workspace: $workspace, label: $label})
WITH split(e.norm, ' ')[0] AS head, collect(e.name) AS names
WHERE size(names) > 1
RETURN head, names
ORDER BY size(names) DESC
LIMIT 50
