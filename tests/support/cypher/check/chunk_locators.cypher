// Every chunk's title and where in its document it is (the locator and the offset of its text).
MATCH (c:Chunk {workspace: $workspace})
RETURN c.title AS title, c.locator AS locator, c.char_start AS start
ORDER BY c.id
