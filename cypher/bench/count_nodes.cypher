MATCH (n:BenchNode) RETURN count(n) AS nodes, COUNT { ()-[:LINKS_TO]->() } AS relationships
