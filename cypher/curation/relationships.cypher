// Every relationship at the entities an edit touches; an end is named by its entity key, or chunk or document id.
UNWIND $keys AS key
MATCH (:Entity {workspace: $workspace, key: key})-[r]-()
WITH DISTINCT r
WITH r, startNode(r) AS s, endNode(r) AS t
RETURN type(r) AS type, properties(r) AS props,
       CASE WHEN s:Entity THEN 'Entity' WHEN s:Chunk THEN 'Chunk' WHEN s:Document THEN 'Document' ELSE 'Other' END
         AS start_kind,
       coalesce(s.key, s.id) AS start_id,
       CASE WHEN t:Entity THEN 'Entity' WHEN t:Chunk THEN 'Chunk' WHEN t:Document THEN 'Document' ELSE 'Other' END
         AS end_kind,
       coalesce(t.key, t.id) AS end_id
