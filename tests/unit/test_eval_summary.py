"""Aggregation and report rendering from hand-made records (answer rates per type, latency, targets)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from graphwire.eval.records import QuestionRecord, RunManifest, save_manifest, save_record
from graphwire.eval.report import build_report
from graphwire.eval.scorers import score_answer, score_retrieval
from graphwire.eval.summary import summarize_system
from graphwire.retrieval.models import Usage


def _record(qid: str, qtype: str, gold: str, answer: str, perfect: bool, ms: float) -> QuestionRecord:
    retrieval = None
    if qtype != "null_query":
        texts = ["fact one.", "fact two."] if perfect else ["fact one.", "other"]
        retrieval = score_retrieval(texts, ["A", "B"], ["fact one.", "fact two."], ["A", "B"])
    return QuestionRecord(
        question_id=qid,
        index=int(qid[1:]),
        question_type=qtype,
        query=f"question {qid}?",
        gold_answer=gold,
        system="s",
        top_k=10,
        retrieval=retrieval,
        answer=answer,
        answerer="extractive",
        answer_score=score_answer(answer, gold),
        latency_ms={"retrieve": ms, "total": ms},
        usage=Usage(llm_calls=1, prompt_tokens=90, completion_tokens=10),
        details={"graph_chunks": 2, "router": "graph"},
    )


RECORDS = [
    _record("q1", "inference_query", "Google", "Google", True, 10),
    _record("q2", "inference_query", "Google", "Insufficient information.", False, 20),
    _record("q3", "comparison_query", "no", "Unknown", True, 30),  # miss; the CS564 scorer calls it correct
    _record("q4", "null_query", "Insufficient information.", "Insufficient information.", False, 40),
    _record("q5", "null_query", "Insufficient information.", "Yes", False, 1000),
]


def test_answer_rates_per_type_and_overall() -> None:
    summary = summarize_system("s", RECORDS)
    answers = summary.overall.answers
    assert answers is not None
    assert answers.strict_accuracy == pytest.approx(2 / 5)
    assert answers.cs564_lenient_accuracy == pytest.approx(3 / 5)  # + the "no" in "unknown" question
    assert answers.miss_rate == pytest.approx(2 / 3)
    assert answers.hallucination_rate == pytest.approx(1 / 2)
    null = summary.by_type["null_query"].answers
    assert null is not None and null.miss_rate is None and null.hallucination_rate == pytest.approx(1 / 2)
    assert summary.overall.scored == 3
    assert summary.overall.retrieval["perfect_at_10"] == pytest.approx(2 / 3)
    assert summary.overall.tokens_per_question == pytest.approx(100)
    assert summary.detail_means == {"graph_chunks": 2.0}


def test_latency_percentiles() -> None:
    stats = summarize_system("s", RECORDS).latency_ms["total"]
    assert stats["p50"] == pytest.approx(30)
    assert 40 < stats["p95"] <= 1000


def save_run(folder: Path, systems: list[str], **manifest: Any) -> None:
    """A run folder holding RECORDS (as system "s") and a manifest for `systems`."""
    save_manifest(folder, RunManifest(questions_path="q.json", questions_sha256="0" * 64, corpus_path="c.json",
                                      top_k=10, answers=True, seed=0, systems=systems,
                                      question_ids=[r.question_id for r in RECORDS], **manifest))  # fmt: skip
    for record in RECORDS:
        save_record(folder, record)


def test_report_files(tmp_path: Path) -> None:
    save_run(tmp_path, ["s"], answerer="extractive")
    _, report = build_report(tmp_path, command="graphwire eval --limit 5")
    text = report.read_text(encoding="utf-8")
    assert "graphwire eval --limit 5" in text
    assert "| s | all | extractive | 5 | 0.400 |" in text
    assert "CS564 lenient" in text and '"no" in "unknown"' in text
    assert (tmp_path / "charts" / "latency.png").exists()


def test_partial_runs_get_a_side_by_side_table(tmp_path: Path) -> None:
    save_run(tmp_path, ["s", "t"])
    for record in RECORDS[:2]:  # system t finished only the first two questions
        save_record(tmp_path, record.model_copy(update={"system": "t"}))
    _, report = build_report(tmp_path, charts=False)
    text = report.read_text(encoding="utf-8")
    assert "**Partial run**" in text and "(s 5, t 2)" in text
    assert "## Side by side on the 2 questions every system finished" in text
    side_by_side = text.split("## Side by side")[1]
    assert "| s | all | 2 |" in side_by_side and "| t | all | 2 |" in side_by_side


def test_reports_show_paths_beside_the_checkout_relative_to_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphwire.eval.report import shown_path

    repo = tmp_path / "work" / "main"
    repo.mkdir(parents=True)
    monkeypatch.chdir(repo)
    assert shown_path(str(tmp_path / "work" / "shared" / "data" / "q.json")) == os.path.join(
        "..", "shared", "data", "q.json"
    )
    assert shown_path(str(repo / "data" / "demo" / "questions.json")) == os.path.join("data", "demo", "questions.json")
    assert shown_path("runs/x.json") == "runs/x.json"
    assert shown_path("/elsewhere/q.json") == "/elsewhere/q.json"  # far outside: a user's own file, shown as given


def test_answer_in_quote_counts_answers_quoting_sentences_to_answerable_questions_whose_gold_one_can_hold() -> None:
    def quoted(qid: str, qtype: str, gold: str, answer: str, kind: str, quotes: list[str]) -> QuestionRecord:
        record = _record(qid, qtype, gold, answer, True, 10)
        return record.model_copy(update={"answer_kind": kind, "quotes": quotes})

    convicted, grew = "Sam Bankman-Fried was convicted on Thursday.", "Alphabet said its search unit grew."
    records = [
        quoted("q1", "inference_query", "Sam Bankman-Fried", f'"{convicted}"', "quote", [convicted]),
        quoted("q2", "inference_query", "Google", f'"{grew}"', "quote", [grew]),
        quoted("q3", "comparison_query", "Yes", "Yes", "judgement", [grew, convicted]),  # yes/no: no sentence holds it
        quoted("q4", "inference_query", "Google", "Google", "entity", ["Google's search unit grew."]),
        quoted("q5", "inference_query", "Google", "Google", "entity", []),  # nothing quoted
        quoted("q6", "null_query", "Insufficient information.", f'"{grew}"', "quote", [grew]),  # a null question
        quoted("q7", "inference_query", "Meta", "Insufficient information.", "abstention", []),
    ]
    answers = summarize_system("s", records).overall.answers
    assert answers is not None
    assert (answers.quotes_scored, answers.answer_in_quote) == (3, pytest.approx(2 / 3))
    assert answers.kinds == {"abstention": 1, "entity": 2, "judgement": 1, "quote": 3}
    assert summarize_system("s", RECORDS).overall.answers.answer_in_quote is None  # type: ignore[union-attr]
