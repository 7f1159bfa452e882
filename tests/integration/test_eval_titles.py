"""The harness end to end on a title-scored set (tests/data/titles, the encyclopedia format of
../shared/data/hotpotqa): the corpus ingested offline into real Neo4j and Chroma, then bm25, graph and the oracle run
side by side, scored by distinct document title, with summary.json and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.eval.harness import EvalOptions, evaluate
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
DATA = Path(__file__).resolve().parents[1] / "data" / "titles"
TITLE_METRICS = {"perfect_at_2", "perfect_at_5", "perfect_at_8", "perfect_at_10", "recall_at_2", "recall_at_5", "mrr"}


def test_title_scored_run_with_bm25_and_graph(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    stores = {"chroma_path": tmp_path / "chroma", "chroma_collection": "eval_titles"}
    settings = neo4j_settings.model_copy(update=stores)
    articles = load_articles(DATA / "corpus.json").articles  # the ingest loader takes the corpus (null source, date)
    assert len(articles) == 10 and all(a.source is None for a in articles)
    extractor = OfflineExtractor(load_schema(), Gazetteer.from_sources([], schema=load_schema()))
    store = ChunkStore.from_settings(settings)
    ingest_articles(
        articles, graph, extractor, options=IngestOptions(progress=False), chunk_store=store, schema=load_schema()
    )

    options = EvalOptions(
        questions=DATA / "questions.json",  # format detected; the corpus defaults to corpus.json beside it
        systems=["bm25", "graph", "oracle"],
        answers=False,
        out=tmp_path / "run",
        progress=False,
        charts=False,
    )
    outcome = evaluate(options, settings)
    assert outcome.selected == 5
    assert "The graph holds exactly the corpus's 10 articles" in outcome.corpus_verdict
    assert "The chunk store holds exactly the corpus's 10 articles" in outcome.corpus_verdict

    payload = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert payload["manifest"]["question_format"] == "titles" and payload["manifest"]["top_k"] == 10
    assert payload["manifest"]["corpus_path"] == str(DATA / "corpus.json")
    systems = {s["system"]: s for s in payload["systems"]}
    assert set(systems) == {"bm25", "graph", "oracle"}
    for name, summary in systems.items():
        overall = summary["overall"]
        assert summary["scoring"] == "titles" and overall["errors"] == 0 and overall["scored"] == 5, name
        assert set(overall["retrieval"]) >= TITLE_METRICS, name
        assert all(0.0 <= overall["retrieval"][m] <= 1.0 for m in TITLE_METRICS), name
        assert set(summary["by_type"]) == {"bridge", "comparison"}, name
        assert set(summary["by_level"]) == {"easy", "medium", "hard"}, name
        assert {"p50", "p95"} <= set(summary["latency_ms"]["retrieve"]), name
    assert systems["oracle"]["overall"]["retrieval"]["perfect_at_2"] == 1.0  # every gold document is in the store
    # ten short passages, names shared by question and passages: BM25 finds most gold documents in its top 5
    assert systems["bm25"]["overall"]["retrieval"]["recall_at_5"] >= 0.7
    text = outcome.report.read_text(encoding="utf-8")
    assert "## Retrieval by document title (every mode side by side)" in text
    assert all(f"| {name} | 5 |" in text for name in systems)
    assert "### Per question type" in text and "### Per level" in text
