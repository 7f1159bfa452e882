// Change detector for the cached name index: the workspace's entities, every workspace's MENTIONS (count store).
RETURN COUNT { (:Entity {workspace: $workspace}) } AS entities, COUNT { ()-[:MENTIONS]->() } AS mentions
