// Who may read what, for the retrieval cut (retrieval/access.py `AccessMap`), read once per graph version:
// - chunks: every chunk's id and access list (null: everyone), so an id the graph does not hold is known as such;
// - sources: the corpus sources with no open document, each with its documents' access lists.
// The entities a result names are read as they come (access/entities).
CALL () {
  MATCH (c:Chunk {workspace: $workspace})
  RETURN collect([c.id, c.access]) AS chunks
}
CALL () {
  MATCH (d:Document {workspace: $workspace})
  WITH d.source AS source, count(d) AS documents, collect(d.access) AS lists
  WHERE source IS NOT NULL AND size(lists) = documents
  RETURN collect([source, lists]) AS sources
}
RETURN chunks, sources
