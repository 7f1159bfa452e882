// How many entities the graph has (a count-store lookup).
RETURN COUNT { (:Entity) } AS entities
