// Who may read what, for the retrieval cut (retrieval/access.py `AccessMap`), read once per graph version:
// - chunks: every chunk's id and access list (null: everyone), so an id the graph does not hold is known as such;
// - entities: the entities that no open chunk (access null) mentions and no open document is reported by, each with
//   the access lists of the chunks and documents that do (none: only a reader of everything sees it);
// - sources: the corpus sources with no open document, each with its documents' access lists.
CALL () {
  MATCH (c:Chunk)
  RETURN collect([c.id, c.access]) AS chunks
}
CALL () {
  MATCH (e:Entity)
  WHERE NOT EXISTS { MATCH (e)<-[:MENTIONS]-(o:Chunk) WHERE o.access IS NULL }
    AND NOT EXISTS { MATCH (e)<-[:REPORTED_BY]-(o:Document) WHERE o.access IS NULL }
  CALL (e) {
    OPTIONAL MATCH (e)<-[:MENTIONS]-(c:Chunk)
    WITH collect(DISTINCT c.access) AS mentioned
    OPTIONAL MATCH (e)<-[:REPORTED_BY]-(d:Document)
    WITH mentioned, collect(DISTINCT d.access) AS reported
    RETURN mentioned + reported AS lists
  }
  RETURN collect([e.key, lists]) AS entities
}
CALL () {
  MATCH (d:Document)
  WITH d.source AS source, count(d) AS documents, collect(d.access) AS lists
  WHERE source IS NOT NULL AND size(lists) = documents
  RETURN collect([source, lists]) AS sources
}
RETURN chunks, entities, sources
