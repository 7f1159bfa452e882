// Every node of every workspace, in one transaction: for the tests' small stores (empty_graph empties one workspace
// in bounded steps).
MATCH (n) DETACH DELETE n
