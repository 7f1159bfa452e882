// How many relationships an entity has, mentions included (the count the hub bounds of retrieve/facts and
// retrieve/relation_hops compare with $two_hop_max_degree).
MATCH (e:Entity {workspace: $workspace, key: $key})
RETURN COUNT { (e)--() } AS degree
