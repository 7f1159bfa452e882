"""The entity layer and its structural layer against a real Neo4j, on a small original corpus (tests/data/).

Title entities are decided per document from its text, generic words are never linked, the dictionary linker adds
the names the tagger missed with the sentence that names them, the PPR snapshot turns shared sentences into
co-occurrence and near-identical names into synonym edges, and all of it goes with its document.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.schemas import news_caps

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, delete_documents, ingest_articles
from graphwire.retrieval.ppr.config import GraphOptions, PPRConfig
from graphwire.retrieval.ppr.engine import build_walk_graph
from graphwire.retrieval.ppr.export import SnapshotCache, export_snapshot
from graphwire.retrieval.ppr.retriever import PPRRetriever
from graphwire.retrieval.registry import RetrievalContext
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).resolve().parents[1] / "data" / "entity_layer.jsonl"


def mentions(graph: Graph) -> list[dict[str, Any]]:
    return graph.read("check/entity_mentions")


@pytest.fixture
def layered(graph: Graph) -> Iterator[Graph]:
    articles = load_articles(CORPUS).articles
    ingest_articles(
        articles, graph, OfflineExtractor(load_schema()), options=IngestOptions(progress=False), schema=load_schema()
    )
    yield graph
    graph.write("admin/wipe")


def test_a_title_that_opens_its_document_is_the_documents_entity(layered: Graph) -> None:
    rows = mentions(layered)
    film = [r for r in rows if r["name"] == "Marrowdale (film)"]
    assert film, "the film's title is an entity"
    assert "Marrowdale" in film[0]["aliases"]  # the title without its qualifier
    assert {r["title"] for r in film if r["is_title"]} == {"Marrowdale (film)"}
    # a headline does not open its article: no title entity for the news story
    assert not [r for r in rows if r["name"] == "Ferry fares rise on northern routes"]


def test_the_linker_adds_names_the_tagger_missed_with_their_sentence(layered: Graph) -> None:
    rows = mentions(layered)
    # "Marrowdale" in Odile Varga's page and Skerrin's page reaches the film's title entity
    film_in = {r["title"]: r for r in rows if r["name"] == "Marrowdale (film)"}
    assert {"Odile Varga", "Skerrin"} <= set(film_in)
    # sentence 0 is the title line the extractor reads first; 2: "... and Marrowdale was filmed on its quays."
    assert film_in["Skerrin"]["sentences"] == [2]
    assert all(r["sentences"] for r in rows), "every mention records its sentences"


def test_a_generic_word_is_not_linked(layered: Graph) -> None:
    rows = mentions(layered)
    lantern = [r for r in rows if r["name"] == "Lantern (series)"]
    assert lantern, "the series page has its title entity"
    # the corpus writes "lantern" in lower case far more often than capitalised: no link from the other page
    assert {r["title"] for r in lantern} == {"Lantern (series)"}


def test_snapshot_has_cooccurrence_and_synonym_edges(layered: Graph) -> None:
    snap = export_snapshot(layered)
    idx = {name: i for i, name in enumerate(snap.entity_names)}
    film, director = idx["Marrowdale (film)"], idx["Odile Varga"]
    assert snap.cooccurrence is not None and snap.cooccurrence[film, director] >= 1  # same sentence, twice
    walk = build_walk_graph(snap, GraphOptions.of(load_schema()))
    assert (
        walk.n_synonym_edges >= 1
    )  # "Maria Lopez" / "Maria Lopes": rapidfuzz ratio 90.9, kept apart by resolution (92)
    a, b = idx["Maria Lopez"], idx["Maria Lopes"]
    assert walk.transition[a, b] > 0 and walk.transition[b, a] > 0


def test_the_structural_layer_goes_with_its_document(layered: Graph) -> None:
    before = {(r["title"], r["name"]) for r in mentions(layered)}
    assert ("Skerrin", "Marrowdale (film)") in before
    delete_documents(layered, ["Skerrin"], provenance=news_caps())
    after = mentions(layered)
    assert not [r for r in after if r["title"] == "Skerrin"]
    snap = export_snapshot(layered)
    assert "Maria Lopes" not in snap.entity_names  # only Skerrin's page named her
    idx = {name: i for i, name in enumerate(snap.entity_names)}
    assert snap.cooccurrence is not None
    assert snap.cooccurrence[idx["Marrowdale (film)"], idx["Odile Varga"]] >= 1  # other pages still pair them


def test_graph_mode_fills_to_top_k(layered: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    no_vectors = neo4j_settings.model_copy(update={"chroma_path": tmp_path / "chroma", "graph_fill_mode": "joint"})
    ctx = RetrievalContext(settings=no_vectors, graph=lambda: layered)
    result = ctx.retriever("graph").retrieve("Who directed Marrowdale?", top_k=5)
    assert len(result.chunks) == 5  # the store has 6 chunks
    by = [c.retrieved_by for c in result.chunks]
    # this store has no vectors: `joint` ranks by PageRank alone, which puts the film's page first
    assert by[0] == "ppr" and result.chunks[0].title == "Marrowdale (film)"
    assert result.details["fill"]["mode"] == "joint" and result.details["fill"]["chunks"] == by.count("ppr")
    unfilled = RetrievalContext(settings=no_vectors.model_copy(update={"graph_fill_mode": "none"}),
                                graph=lambda: layered)  # fmt: skip
    alone = unfilled.retriever("graph").retrieve("Who directed Marrowdale?", top_k=5)
    assert "fill" not in alone.details and all(c.retrieved_by is None for c in alone.chunks)
    # the default fill (fused) finds nothing in an empty chunk store: the graph's own other chunks fill the ranking
    fused = RetrievalContext(settings=no_vectors.model_copy(update={"graph_fill_mode": "fused"}), graph=lambda: layered)
    filled = fused.retriever("graph").retrieve("Who directed Marrowdale?", top_k=5)
    assert filled.details["fill"]["mode"] == "fused" and filled.details["fill"]["chunks"] == 0
    assert [c.chunk_id for c in filled.chunks] == [c.chunk_id for c in alone.chunks]
    # ppr_bm25 fuses PPR and BM25; with no chunks for BM25 to rank, PPR's order fills the ranking
    both = RetrievalContext(
        settings=no_vectors.model_copy(update={"graph_fill_mode": "ppr_bm25"}), graph=lambda: layered
    )
    by_ppr = RetrievalContext(settings=no_vectors.model_copy(update={"graph_fill_mode": "ppr"}), graph=lambda: layered)
    fused_walk = both.retriever("graph").retrieve("Who directed Marrowdale?", top_k=5)
    walk = by_ppr.retriever("graph").retrieve("Who directed Marrowdale?", top_k=5)
    assert fused_walk.details["fill"]["mode"] == "ppr_bm25" and fused_walk.details["fill"]["chunks"] >= 1
    assert [(c.chunk_id, c.retrieved_by) for c in fused_walk.chunks] == [
        (c.chunk_id, c.retrieved_by) for c in walk.chunks
    ]


class _RecordingScorer:
    """A passage scorer that says which questions asked it (and ranks the Lantern page first)."""

    def __init__(self, graph: Graph) -> None:
        self.asked: list[str] = []
        self.lantern = next(r["chunk_id"] for r in mentions(graph) if r["title"] == "Lantern (series)")

    def score(self, question: str, top_n: int) -> dict[str, float]:
        self.asked.append(question)
        return {self.lantern: 1.0}


def test_passage_seeds_only_for_questions_without_a_title_entity(layered: Graph) -> None:
    scorer = _RecordingScorer(layered)
    ppr = PPRRetriever(
        layered, SnapshotCache(layered, 0.0), PPRConfig(graph=GraphOptions.of(load_schema())), passage_scorer=scorer
    )
    titled = ppr.retrieve("Who directed Marrowdale?", top_k=3)
    assert titled.details["titled_seeds"] == 1 and scorer.asked == []
    untitled = ppr.retrieve("Which harbour towns are in Kestria?", top_k=6)  # Kestria: named, but no page is about it
    assert untitled.details["titled_seeds"] == 0 and scorer.asked == ["Which harbour towns are in Kestria?"]
    assert "Lantern (series)" in {c.title for c in untitled.chunks}  # reached only through the passage seed


def test_a_name_from_a_later_run_reaches_an_older_chunk_when_it_is_written_again(graph: Graph) -> None:
    from graphwire.core.documents import Article

    older = Article(title="Desktop notes", body="Many users still run qvwm-style setups, and some run Qvwm itself.")
    later = Article(title="Qvwm", body="Qvwm is a lightweight window manager for Linux systems, released in 1996.")
    extractor, options = OfflineExtractor(load_schema()), IngestOptions(progress=False)
    ingest_articles([older], graph, extractor, options=options, schema=load_schema())
    ingest_articles([later], graph, extractor, options=options, schema=load_schema())

    def qvwm_pages() -> set[str]:
        return {r["title"] for r in mentions(graph) if r["name"] == "Qvwm"}

    assert qvwm_pages() == {"Qvwm"}  # the older chunk was linked before the name existed
    ingest_articles([older], graph, extractor, options=IngestOptions(progress=False, force=True), schema=load_schema())
    assert qvwm_pages() == {"Qvwm", "Desktop notes"}
    graph.write("admin/wipe")
