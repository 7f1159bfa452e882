"""The harness end to end on a tiny slice in the MultiHop-RAG format, made from the project's own demo corpus (so it
needs nothing outside the repository): real Chroma chunks, real Neo4j, records, resume, report."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.openai_stub import OpenAIStub, text

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.eval.datasets import load_corpus, load_questions
from graphwire.eval.harness import EvalOptions, evaluate
from graphwire.eval.questions import Question
from graphwire.eval.records import RunManifest, load_records
from graphwire.eval.report import build_report
from graphwire.eval.runner import RunMismatchError, RunPlan, run
from graphwire.eval.summary import summarize_system
from graphwire.retrieval.base import Retriever
from graphwire.retrieval.models import RankedChunk, RetrievalResult
from graphwire.retrieval.registry import build_answerer

pytestmark = pytest.mark.integration
PER_TYPE = 2
DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"
DEMO_TYPES = {"inference": "inference_query", "comparison": "comparison_query", "temporal": "temporal_query",
              "null": "null_query"}  # fmt: skip


class ChromaDense:
    """A minimal dense retriever over the chunk store: the runner mechanics on real chunks, no Neo4j mock."""

    name = "dense-test"

    def __init__(self, store: ChunkStore) -> None:
        self.store = store

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        hits = self.store.query(question, top_k)
        chunks = self.store.get([chunk_id for chunk_id, _ in hits])
        scores = dict(hits)
        ranked = [
            RankedChunk(chunk_id=c.id, document_id=c.document_id, title=c.title, text=c.text, score=scores[c.id])
            for c in chunks
        ]
        return RetrievalResult(mode=self.name, chunks=ranked, timings_ms={"chroma": 1.0})


class Broken:
    name = "broken"

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        raise RuntimeError("boom")


def _first_sentence(body: str) -> str:
    return body.split(". ", 1)[0]


def _slice(tmp: Path) -> tuple[Path, Path, list[str]]:
    """Up to two demo questions per type as MultiHop-RAG records (each evidence article's first sentence as its
    fact), their articles and six others, as small files."""
    articles = [json.loads(line) for line in (DEMO / "articles.jsonl").read_text(encoding="utf-8").splitlines() if line]
    by_title = {a["title"]: a for a in articles}
    demo = json.loads((DEMO / "questions.json").read_text(encoding="utf-8"))
    picked: list[dict[str, object]] = []
    for kind, question_type in DEMO_TYPES.items():
        for q in [d for d in demo if d["type"] == kind][:PER_TYPE]:
            evidence = [
                {k: by_title[t][k] for k in ("title", "author", "url", "source", "category", "published_at")}
                | {"fact": _first_sentence(by_title[t]["body"])}
                for t in q["evidence"]
            ]
            picked.append({"query": q["question"], "answer": q["answer"], "question_type": question_type,
                           "evidence_list": evidence})  # fmt: skip
    gold_titles = {e["title"] for r in picked for e in r["evidence_list"]}  # type: ignore[attr-defined]
    others = [a for a in articles if a["title"] not in gold_titles][:6]
    chosen = [a for a in articles if a["title"] in gold_titles] + others
    questions_path, corpus_path = tmp / "questions.json", tmp / "corpus.json"
    questions_path.write_text(json.dumps(picked), encoding="utf-8")
    corpus_path.write_text(json.dumps(chosen), encoding="utf-8")
    return questions_path, corpus_path, [a["title"] for a in chosen]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, neo4j_settings: Settings) -> Iterator[tuple[Settings, Path, Path]]:
    tmp = tmp_path_factory.mktemp("eval")
    questions_path, corpus_path, _ = _slice(tmp)
    settings = neo4j_settings.model_copy(update={"chroma_path": tmp / "chroma", "chroma_collection": "eval_tiny"})
    store = ChunkStore.from_settings(settings)
    chunks = []
    for article in load_corpus(corpus_path):
        doc_id = article.url or hashlib.sha256(article.title.encode()).hexdigest()[:32]
        text = f"[Source: {article.source} | Title: {article.title}] {article.body}"
        chunk_id = hashlib.sha256(f"{doc_id}|0|{text}".encode()).hexdigest()[:32]
        chunks.append(Chunk(id=chunk_id, document_id=doc_id, index=0, text=text, title=article.title))
    store.upsert(chunks)
    yield settings, questions_path, corpus_path


def _manifest(questions: list[Question], path: Path, systems: list[str], top_k: int = 5) -> RunManifest:
    return RunManifest(
        questions_path=str(path),
        questions_sha256="x",
        corpus_path="c",
        top_k=top_k,
        answers=False,
        seed=0,
        systems=systems,
        question_ids=[q.id for q in questions],
    )


def test_runner_records_resume_and_report(tiny: tuple[Settings, Path, Path], tmp_path: Path) -> None:
    settings, questions_path, _ = tiny
    questions = load_questions(questions_path).questions
    systems: dict[str, Retriever] = {"dense-test": ChromaDense(ChunkStore.from_settings(settings)), "broken": Broken()}
    manifest = _manifest(questions, questions_path, list(systems))
    out = tmp_path / "run"

    first = run(RunPlan(questions, systems, out, manifest, progress=False))
    assert first == {"dense-test": len(questions), "broken": len(questions)}
    records = load_records(out, "dense-test", manifest.question_ids)
    assert len(records) == len(questions)
    scored = [r for r in records if r.retrieval is not None]
    nulls = sum(1 for q in questions if q.is_null)
    assert nulls and len(scored) == len(questions) - nulls  # null questions carry no retrieval score
    assert all(len(r.chunks) <= 5 and "retrieve" in r.latency_ms for r in records)
    # every gold article is in this tiny store, so dense retrieval finds at least one fact for most questions
    assert sum(r.retrieval.hits_at_10 for r in scored if r.retrieval) >= len(scored) / 2
    assert all(r.error and "boom" in r.error for r in load_records(out, "broken", manifest.question_ids))

    again = run(RunPlan(questions, systems, out, manifest, progress=False))
    assert again == {"dense-test": 0, "broken": len(questions)}  # finished records are skipped, failures retried

    with pytest.raises(RunMismatchError, match="top_k"):
        run(RunPlan(questions, systems, out, _manifest(questions, questions_path, list(systems), top_k=7)))

    summaries, report = build_report(out, command="pytest")
    text = report.read_text(encoding="utf-8")
    assert "| dense-test | all |" in text and f"broken: {len(questions)} questions failed" in text
    assert (out / "summary.json").exists() and (out / "charts" / "per_type_perfect_at_10.png").stat().st_size > 1000
    dense = next(s for s in summaries if s.system == "dense-test")
    assert dense.overall.scored == len(scored)
    assert 0.0 <= dense.overall.retrieval["map_at_10"] <= 1.0


def test_evaluate_with_oracle_and_corpus_check(tiny: tuple[Settings, Path, Path], graph: Graph, tmp_path: Path) -> None:
    settings, questions_path, corpus_path = tiny
    options = EvalOptions(
        questions=questions_path,
        corpus=corpus_path,
        systems=["oracle"],
        top_k=10,
        answers=False,
        out=tmp_path / "oracle",
        progress=False,
        charts=False,
    )
    outcome = evaluate(options, settings)
    oracle = outcome.summaries[0]
    # whole articles are single chunks here, so the ceiling is every fact found at the best possible ranks
    assert oracle.overall.retrieval["perfect_at_10"] == 1.0
    assert oracle.overall.retrieval["hits_at_4"] == 1.0
    assert oracle.overall.retrieval["article_recall_at_10"] == 1.0
    # the graph is empty (nothing ingested into it), the chunk store holds exactly the corpus: both said plainly
    assert "the graph was NOT built from this corpus" in outcome.corpus_verdict
    assert "The chunk store holds exactly the corpus's" in outcome.corpus_verdict
    assert "NOT built from this corpus" in outcome.report.read_text(encoding="utf-8")


def test_llm_answers_are_scored_with_usage(
    tiny: tuple[Settings, Path, Path], llm_settings: Settings, openai_stub: OpenAIStub, tmp_path: Path
) -> None:
    """The LLM answerer against the OpenAI-compatible stub: every reply is "No"; calls and tokens are recorded."""
    settings, questions_path, _ = tiny
    openai_stub.fallback = text("No")
    questions = load_questions(questions_path).questions
    manifest = _manifest(questions, questions_path, ["dense-test"]).model_copy(update={"answers": True})
    plan = RunPlan(
        questions,
        {"dense-test": ChromaDense(ChunkStore.from_settings(settings))},
        tmp_path / "llm",
        manifest,
        answerer=build_answerer("llm", llm_settings),
        progress=False,
    )
    run(plan)
    records = load_records(tmp_path / "llm", "dense-test", manifest.question_ids)
    assert all(r.answer == "No" and r.answerer and r.answerer.startswith("llm:") for r in records)
    prompt_tokens, completion_tokens = openai_stub.reported_usage()
    assert sum(r.usage.llm_calls for r in records) == len(openai_stub.chat_requests) == len(records)
    assert sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in records) == prompt_tokens + completion_tokens
    summary = summarize_system("dense-test", records)
    answers = summary.overall.answers
    assert answers is not None
    no_golds = sum(1 for q in questions if q.answer.lower() == "no")
    assert answers.strict_accuracy == pytest.approx(no_golds / len(questions))
    assert summary.by_type["null_query"].answers.hallucination_rate == 1.0  # type: ignore[union-attr]
    assert summary.overall.llm_calls_per_question == 1.0
