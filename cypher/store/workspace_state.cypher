// Whether $workspace exists (entered in the registry, or holding documents or entities: written before the
// registry) and whether it is being deleted: what a request naming it is checked against (app/services.py).
RETURN EXISTS { MATCH (w:Workspace {workspace: $workspace}) }
       OR EXISTS { MATCH (d:Document {workspace: $workspace}) }
       OR EXISTS { MATCH (e:Entity {workspace: $workspace}) } AS exists,
       EXISTS { MATCH (w:Workspace {workspace: $workspace}) WHERE w.deleting IS NOT NULL } AS deleting
