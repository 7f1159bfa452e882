"""`graphwire eval` on the demo: its own questions and JSONL corpus, ingested offline into real Neo4j and Chroma,
every answer scored (the extractive answerer), the two unanswerable questions scored as abstentions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.paths import DEMO_DIR
from graphwire.core.settings import Settings
from graphwire.eval.harness import EvalOptions, evaluate
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration


def test_eval_runs_on_the_demo_questions_and_corpus(graph: Graph, neo4j_settings: Settings, tmp_path: Path) -> None:
    graph.write("admin/wipe")
    settings = neo4j_settings.model_copy(update={"chroma_path": tmp_path / "chroma", "chroma_collection": "demo_eval"})
    articles = load_articles(DEMO_DIR / "articles.jsonl").articles
    gazetteer = Gazetteer.from_sources([a.source for a in articles], schema=load_schema()).with_file(
        DEMO_DIR / "gazetteer.yaml"
    )
    extractor = OfflineExtractor(load_schema(), gazetteer)
    store = ChunkStore.from_settings(settings)
    ingest_articles(
        articles, graph, extractor, options=IngestOptions(progress=False), chunk_store=store, schema=load_schema()
    )

    options = EvalOptions(
        questions=DEMO_DIR / "questions.json",  # the corpus defaults to articles.jsonl beside it
        systems=["graph", "bm25", "oracle"],
        answers=True,
        out=tmp_path / "run",
        progress=False,
        charts=False,
    )
    outcome = evaluate(options, settings)
    assert outcome.selected == 15
    assert "The graph holds exactly the corpus's 22 articles" in outcome.corpus_verdict

    payload = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    systems = {s["system"]: s for s in payload["systems"]}
    assert set(systems) == {"graph", "bm25", "oracle"}
    for name, summary in systems.items():
        overall = summary["overall"]
        assert summary["scoring"] == "titles" and overall["errors"] == 0, name
        assert overall["scored"] == 13, name  # retrieval is scored on the 13 answerable questions
        assert overall["answers"]["answered"] == 15, name
    assert systems["oracle"]["overall"]["retrieval"]["perfect_at_10"] == 1.0  # every gold document is stored
    # the offline graph answers the demo (strictly scored here; `graphwire demo` counts an answer containing the
    # expected one) and abstains on both unanswerable questions
    graph_answers = systems["graph"]["overall"]["answers"]
    assert graph_answers["strict_accuracy"] >= 12 / 13 and graph_answers["hallucination_rate"] == 0.0
    assert systems["graph"]["by_type"]["null_query"]["answers"]["strict_accuracy"] == 1.0
    report = outcome.report.read_text(encoding="utf-8")
    assert "## Retrieval by document title" in report and "target" not in report.lower()
