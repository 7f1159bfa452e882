"""mode=joint over real Neo4j and Chroma on the chains corpus, and graph mode filled from it with one pass per stage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.chains import GoldExtractor, chain_records

from graphwire.core.clients.chroma import open_client
from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.retrieval.fill import FilledRetriever
from graphwire.retrieval.joint import JointConfig, JointRetriever
from graphwire.retrieval.registry import RetrievalContext
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
SUPPLY_QUESTION = "Which company supplies the supplier of Kestrel Motors?"
BRIDGE = "Quarrow Minerals doubles lithium refining for its biggest customer"  # Quarrow supplies Brightcell


@pytest.fixture
def context(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> RetrievalContext:
    return _ingested(graph, neo4j_settings.model_copy(update={"chroma_path": tmp_path / "chroma"}), chain_records())


def _ingested(graph: Graph, settings: Settings, records: list[dict[str, Any]]) -> RetrievalContext:
    """`records` (the chains corpus's form, with their gold extractions) in Neo4j and in a fresh chunk store."""
    settings = settings.model_copy(update={"chroma_collection": "joint_test", "ppr_snapshot_check_s": 0.0})
    fields = set(Article.model_fields)
    report = ingest_articles(
        [Article.model_validate({k: v for k, v in r.items() if k in fields}) for r in records],
        graph,
        GoldExtractor(records),
        options=IngestOptions(progress=False, force=True),
        chunk_store=ChunkStore.from_settings(settings),
        schema=load_schema(),
    )
    assert not report.failures
    return RetrievalContext(settings, graph=lambda: graph)


def test_joint_ranks_the_bridge_and_says_what_each_signal_brought(context: RetrievalContext) -> None:
    joint = context.retriever("joint")
    assert isinstance(joint, JointRetriever)
    result = joint.retrieve(SUPPLY_QUESTION, top_k=4)

    assert result.mode == "joint"
    assert BRIDGE in [c.title for c in result.chunks]
    assert "Kestrel Motors" in {e.name for e in result.entities}
    # news-style articles name no title entity: flat+ guided by the graph's chunk ranking, with the graph's facts
    assert result.details["ranking"] == "graph_guided_flat" and result.details["titled_seeds"] == 0
    # ranked twice: the second time with an entity the first ranking's documents share and the question does not name
    bridge = result.details["bridge"]
    assert bridge and bridge.lower() not in SUPPLY_QUESTION.lower()
    assert ("Quarrow Minerals", "SUPPLIES", "Brightcell Energy") in {
        (f.subject, f.relationship, f.object) for f in result.facts
    }
    assert {"embed", "graph", "flat", "total", "graph.templates"} <= set(result.timings_ms)


def test_ppr_seeds_passages_whether_or_not_the_surface_passed_a_chroma_getter(context: RetrievalContext) -> None:
    """A context built without a Chroma getter (a script, a benchmark) opens the store its flat modes read, so `ppr`
    seeds its walk with passages and ranks as it does in the API (a context given the getter)."""
    with_getter = RetrievalContext(context.settings, graph=context.graph, chroma=lambda: open_client(context.settings))
    ours = context.retriever("ppr").retrieve(SUPPLY_QUESTION, top_k=5)
    theirs = with_getter.retriever("ppr").retrieve(SUPPLY_QUESTION, top_k=5)
    assert ours.details["titled_seeds"] == 0 and ours.details["passage_seeds"] > 0
    assert "passage_seeds_error" not in ours.details
    assert [c.chunk_id for c in ours.chunks] == [c.chunk_id for c in theirs.chunks]
    assert context.chroma_client() is context.chroma_client()  # opened once


def test_graph_mode_fills_from_joint_and_runs_its_stages_once(context: RetrievalContext) -> None:
    context = RetrievalContext(context.settings.model_copy(update={"graph_fill_mode": "joint"}), graph=context.graph)
    graph_mode = context.retriever("graph")
    joint = context.retriever("joint")
    assert isinstance(graph_mode, FilledRetriever) and graph_mode.fill is joint
    assert isinstance(joint, JointRetriever) and graph_mode.primary is joint.graph  # one graph retriever, one pass
    calls: list[str] = []
    primary = graph_mode.primary
    original = primary.retrieve

    def counted(question: str, top_k: int = 10) -> Any:
        calls.append(question)
        return original(question, top_k)

    primary.retrieve = counted  # type: ignore[method-assign]
    result = graph_mode.retrieve(SUPPLY_QUESTION, top_k=7)

    assert calls == [SUPPLY_QUESTION]  # stages 1-4 once: the fill never comes back to graph mode
    assert len(result.chunks) == 7
    assert result.details["fill"]["mode"] == "joint" and result.details["fill"]["chunks"] > 0
    assert {c.retrieved_by for c in result.chunks} == {"graph", "joint"}
    assert ("Quarrow Minerals", "SUPPLIES", "Brightcell Energy") in {
        (f.subject, f.relationship, f.object) for f in result.facts
    }


LONG_TITLE = "Who supplies the supplier of Kestrel Motors: a long review of the carmaker's supply chain"


def long_supply_record() -> dict[str, Any]:
    """One article of several chunks, each about the question's words: its chunks lead an unspread ranking."""
    paragraph = (
        "Which company supplies the supplier of Kestrel Motors? Kestrel Motors buys its battery cells from a "
        "supplier, and that supplier in turn buys lithium from another company. Analysts who follow the carmaker "
        "say the supplier of Kestrel Motors depends on a single company for refined lithium, and that the company "
        "supplying that supplier has doubled its refining. "
    )
    body = "\n\n".join(f"Part {n}. {paragraph * 2}" for n in range(1, 5))
    return {"title": LONG_TITLE, "body": body, "source": "The Harbor Ledger", "published_at": "2024-03-20",
            "entities": [], "relations": []}  # fmt: skip


@pytest.fixture
def with_long_article(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> RetrievalContext:
    """The chains corpus and one long article of several chunks."""
    settings = neo4j_settings.model_copy(update={"chroma_path": tmp_path / "chroma"})
    return _ingested(graph, settings, [*chain_records(), long_supply_record()])


def test_the_first_places_show_two_documents_when_one_article_leads(with_long_article: RetrievalContext) -> None:
    joint = with_long_article.retriever("joint")
    assert isinstance(joint, JointRetriever)
    joint.config = JointConfig(spread_head=0)
    unspread = joint.retrieve(SUPPLY_QUESTION, top_k=6).chunks
    unspread_documents = [c.document_id for c in unspread]
    assert unspread[0].title == LONG_TITLE and unspread_documents[1] == unspread_documents[0]

    joint.config = JointConfig()
    spread = joint.retrieve(SUPPLY_QUESTION, top_k=6).chunks
    documents = [c.document_id for c in spread]
    # the same chunks; the first two from two documents, the first four at most two of one; the first one stays
    assert {c.chunk_id for c in spread} == {c.chunk_id for c in unspread}
    assert documents[0] == unspread_documents[0] and documents[1] != documents[0]
    assert max(documents[:4].count(d) for d in documents[:4]) <= 2


@pytest.fixture
def encyclopedia(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> RetrievalContext:
    """The encyclopedia corpus (titled passages) in Neo4j and in a chunk store with the same chunk ids."""
    from support.encyclopedia import SCHEMA_PATH, load_corpus, write_to_graph

    from graphwire.core.documents import Chunk

    corpus = write_to_graph(graph, load_corpus())
    settings = neo4j_settings.model_copy(
        update={
            "chroma_path": tmp_path / "chroma",
            "chroma_collection": "joint_encyclopedia",
            "schema_path": SCHEMA_PATH,
            "ppr_snapshot_check_s": 0.0,
        }  # fmt: skip
    )
    chunks = [
        Chunk(id=p.chunk_id, document_id=p.chunk_id, index=0, text=p.text, title=p.title) for p in corpus.passages
    ]
    assert ChunkStore.from_settings(settings).upsert(chunks) == len(chunks)
    return RetrievalContext(settings, graph=lambda: graph)


def test_graph_mode_fills_from_fused_by_default_beside_its_stages_run_once(context: RetrievalContext) -> None:
    graph_mode = context.retriever("graph")
    assert isinstance(graph_mode, FilledRetriever) and graph_mode.fill is context.retriever("fused")
    templates = graph_mode.primary.templates  # type: ignore[attr-defined]
    runs: list[int] = []
    original = templates.run

    def counted(*args: Any, **kwargs: Any) -> Any:
        runs.append(1)
        return original(*args, **kwargs)

    templates.run = counted
    result = graph_mode.retrieve(SUPPLY_QUESTION, top_k=7)

    assert runs == [1]  # stage 3 once per request
    assert len(result.chunks) == 7
    assert result.details["fill"]["mode"] == "fused" and result.details["fill"]["chunks"] > 0
    assert {c.retrieved_by for c in result.chunks} == {"graph", "fused"}
    assert ("Quarrow Minerals", "SUPPLIES", "Brightcell Energy") in {
        (f.subject, f.relationship, f.object) for f in result.facts
    }


def test_a_question_naming_a_page_gets_the_walks_and_reaches_the_bridge(encyclopedia: RetrievalContext) -> None:
    result = encyclopedia.retriever("joint").retrieve("Where was the director of Glass Harbour born?", top_k=4)

    assert result.details["ranking"] == "walks" and result.details["titled_seeds"] >= 1
    signals = {"flat", "dense", "lexical", "entity_walk", "passage_walk", "title", "linked"}
    assert set(result.details["signals"]) == signals
    assert result.details["signals"]["title"] == 0  # it compares nothing: no compared page is ranked
    assert result.details["passage_seeds"] >= 1
    # the first-ranked passage, Glass Harbour's page, names its director: his page is among the pages it links to
    assert result.details["linked_pages"] >= 1 and result.details["signals"]["linked"] >= 1
    # the page the question names and the bridge it never names (Glass Harbour's director), above the namesakes
    assert {c.title for c in result.chunks[:2]} == {"Glass Harbour", "Mateo Brandt"}
    assert {"walk", "fuse"} <= set(result.timings_ms)


def test_the_answerer_reads_what_the_retrieved_chunks_mention_from_the_shared_snapshot(
    context: RetrievalContext,
) -> None:
    from graphwire.retrieval.answer.checked import CheckedAnswerer
    from graphwire.retrieval.answer.extractive import ExtractiveAnswerer
    from graphwire.retrieval.answer.subjects import SnapshotEntities

    answerer = context.answerer("extractive")
    inner = answerer.inner if isinstance(answerer, CheckedAnswerer) else answerer
    assert isinstance(inner, ExtractiveAnswerer)
    entities = inner.sentences.entities
    assert isinstance(entities, SnapshotEntities) and entities.snapshots() is context.services().snapshots
    result = context.retriever("joint").retrieve(SUPPLY_QUESTION, top_k=4)
    bridge = next(c for c in result.chunks if c.title == BRIDGE)
    [mentioned, unknown] = entities.of([bridge.chunk_id, "no-such-chunk"])
    assert {("Quarrow Minerals", "Organization"), ("Brightcell Energy", "Organization")} <= {
        (m.name, m.label) for m in mentioned
    }
    assert all(m.count >= 1 for m in mentioned) and unknown == []


def test_a_question_comparing_two_named_pages_ranks_both_first(encyclopedia: RetrievalContext) -> None:
    question = "Were Glass Harbour and The Lantern Keepers produced by the same studio?"
    result = encyclopedia.retriever("joint").retrieve(question, top_k=4)

    assert result.details["ranking"] == "walks" and result.details["titled_seeds"] >= 2
    assert result.details["signals"]["title"] >= 2  # both compared pages came from the title signal's top
    assert result.details["linked_pages"] == 0  # a comparing question has its pages: no link is followed
    assert {c.title for c in result.chunks[:2]} == {"Glass Harbour", "The Lantern Keepers"}


def test_the_pages_the_first_passage_links_to_bring_the_next_hop_up(encyclopedia: RetrievalContext) -> None:
    from graphwire.retrieval.joint import JointConfig

    joint = encyclopedia.retriever("joint")
    assert isinstance(joint, JointRetriever)
    unlinked = JointRetriever(joint.flat, joint.ppr, joint.graph, JointConfig(linked_weight=0.0))
    question = "In which country was the director of Winter Ledger born?"  # Winter Ledger -> its director -> Varnholm
    without = [c.title for c in unlinked.retrieve(question, top_k=10).chunks]
    result = joint.retrieve(question, top_k=10)
    titles = [c.title for c in result.chunks]
    assert "Varnholm" not in without  # no other signal reaches the birthplace's page
    # the director's page, ranked first, names her birthplace: its page comes third, after the film's
    assert titles[:3] == ["Ilse Marrow", "Winter Ledger", "Varnholm"] and result.details["linked_pages"] >= 1


def test_a_question_describing_its_first_page_follows_that_pages_links(encyclopedia: RetrievalContext) -> None:
    from graphwire.retrieval.joint import JointConfig

    joint = encyclopedia.retriever("joint")
    assert isinstance(joint, JointRetriever)
    unlinked = JointRetriever(joint.flat, joint.ppr, joint.graph, JointConfig(linked_weight=0.0))
    question = "Where was the actor who played a lighthouse keeper born?"  # names no page: his is found by its words
    without = [c.title for c in unlinked.retrieve(question, top_k=4).chunks]
    result = joint.retrieve(question, top_k=4)

    assert result.details["ranking"] == "graph_guided_flat" and result.details["titled_seeds"] == 0
    assert set(result.details["signals"]) == {"graph_guided_flat", "linked"}
    assert "Varnholm" not in without
    # the actor's page, ranked first, names his birthplace: its page joins the first four
    titles = [c.title for c in result.chunks]
    assert titles[0] == "Emil Castellane" and "Varnholm" in titles
    assert result.details["linked_pages"] >= 1 and result.details["signals"]["linked"] >= 1
