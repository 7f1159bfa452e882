"""The default mode against the best flat mode: paired differences, the flat mode chosen per score, the bootstrap
interval, and the report's section."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphwire.eval.lead import lead_section, paired_leads
from graphwire.eval.records import QuestionRecord, RunManifest, save_manifest, save_record
from graphwire.eval.report import build_report
from graphwire.eval.scorers import score_retrieval, score_titles

FACTS = ["fact one.", "fact two."]


def _facts_record(system: str, qid: str, texts: list[str], error: str | None = None) -> QuestionRecord:
    return QuestionRecord(question_id=qid, index=int(qid[1:]), question_type="inference_query", query=qid,
                          gold_answer="x", system=system, top_k=10, error=error,
                          retrieval=score_retrieval(texts, ["A"] * len(texts), FACTS, ["A", "B"]))  # fmt: skip


def _title_record(system: str, qid: str, titles: list[str]) -> QuestionRecord:
    return QuestionRecord(question_id=qid, index=int(qid[1:]), question_type="bridge", query=qid, gold_answer="x",
                          system=system, top_k=10, title_retrieval=score_titles(titles, ["A", "B"]))  # fmt: skip


BOTH = ["fact one.", "fact two."]  # both facts in the first two chunks: every score 1
FIRST_ONLY_LATE = ["x"] * 5 + ["fact one."]  # one fact at rank 6: Hits@4 0, Perfect@10 0, MRR 1/6


def _run(default_texts: list[list[str]], flat: dict[str, list[list[str]]]) -> dict[str, list[QuestionRecord]]:
    runs = {"joint": default_texts, **flat}
    return {name: [_facts_record(name, f"q{i}", t) for i, t in enumerate(texts)] for name, texts in runs.items()}


def test_a_clear_lead_has_an_interval_above_zero_and_the_best_flat_mode_is_chosen_per_score() -> None:
    default = [BOTH] * 40
    # bm25 finds one fact early on every question (better MRR), vector finds both on a quarter of them
    records = _run(default, {"bm25": [["fact one."]] * 40, "vector": [BOTH] * 10 + [FIRST_ONLY_LATE] * 30})
    leads = {lead.metric: lead for lead in paired_leads(records)}
    assert leads["perfect_at_10"].flat == "vector" and leads["perfect_at_10"].difference == pytest.approx(0.75)
    assert leads["mrr_at_10"].flat == "bm25" and leads["mrr_at_10"].difference == pytest.approx(0.0)
    assert 0 < leads["perfect_at_10"].low <= 0.75 <= leads["perfect_at_10"].high < 1
    assert leads["mrr_at_10"].low == leads["mrr_at_10"].high == 0  # equal on every question: no spread
    assert "article_precision_at_10" not in leads and leads["recall_at_2"].questions == 40


def test_a_lead_on_few_questions_has_an_interval_that_reaches_below_zero() -> None:
    records = _run(
        [BOTH] * 2 + [FIRST_ONLY_LATE] * 8, {"vector": [FIRST_ONLY_LATE] * 2 + [BOTH] + [FIRST_ONLY_LATE] * 7}
    )
    lead = next(lead for lead in paired_leads(records) if lead.metric == "perfect_at_10")
    assert lead.difference == pytest.approx(0.1)
    assert lead.low < 0 < lead.high


def test_only_questions_every_compared_mode_scored_count() -> None:
    records = _run([BOTH] * 3, {"vector": [FIRST_ONLY_LATE] * 3})
    records["vector"][0] = _facts_record("vector", "q0", BOTH, error="timeout")
    assert all(lead.questions == 2 for lead in paired_leads(records))


def test_no_lead_without_the_default_mode_or_a_flat_mode() -> None:
    records = _run([BOTH], {"vector": [BOTH]})
    assert paired_leads({"graph": records["joint"], "vector": records["vector"]}) == []
    assert paired_leads({"joint": records["joint"], "ppr": records["vector"]}) == []
    assert lead_section([]) == []


def test_title_scored_runs_compare_the_title_scores() -> None:
    records = {
        "joint": [_title_record("joint", f"q{i}", ["A", "B"]) for i in range(5)],
        "flat_plus": [_title_record("flat_plus", f"q{i}", ["A", "C", "D", "B"]) for i in range(5)],
    }
    leads = {lead.metric: lead for lead in paired_leads(records)}
    assert set(leads) == {"perfect_at_2", "perfect_at_5", "perfect_at_8", "perfect_at_10", "recall_at_2",
                          "recall_at_5", "mrr"}  # fmt: skip
    assert leads["perfect_at_2"].difference == pytest.approx(1.0) and leads["perfect_at_5"].difference == 0


def test_the_report_shows_the_section_and_summary_json_the_leads(tmp_path: Path) -> None:
    records = _run([BOTH] * 4, {"vector": [FIRST_ONLY_LATE] * 4})
    save_manifest(tmp_path, RunManifest(questions_path="q.json", questions_sha256="0" * 64, corpus_path="c.json",
                                        top_k=10, answers=False, seed=0, systems=["joint", "vector"],
                                        question_ids=[f"q{i}" for i in range(4)]))  # fmt: skip
    for recs in records.values():
        for record in recs:
            save_record(tmp_path, record)
    _, report = build_report(tmp_path, charts=False)
    text = report.read_text()
    assert "## The default mode against the best flat mode (paired)" in text
    assert "| Perfect@10 | 1.000 | vector | 0.000 | +1.000 | [+1.000, +1.000] |" in text
    assert text.index("## The default mode") > text.index("## Retrieval")
    assert '"default_against_best_flat"' in (tmp_path / "summary.json").read_text()
