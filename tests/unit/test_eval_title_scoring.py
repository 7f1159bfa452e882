"""Title-scored question sets (the encyclopedia format of ../shared/data/hotpotqa): loading, format detection, scoring
by distinct document title, the runner, summary.json and the side-by-side report, on tests/data/titles."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from graphwire.cli.eval_cmd import eval_command
from graphwire.core.documents import Chunk
from graphwire.eval.datasets import default_corpus, load_corpus, load_questions
from graphwire.eval.oracle import OracleRetriever
from graphwire.eval.questions import MULTIHOP_FORMAT, TITLES_FORMAT, DatasetError, Question, TitleQuestion
from graphwire.eval.records import RunManifest, load_records
from graphwire.eval.report import build_report
from graphwire.eval.runner import RunPlan, run
from graphwire.eval.scorers import Outcome, score_titles
from graphwire.eval.selection import filter_types
from graphwire.eval.summary import summarize_system
from graphwire.retrieval.models import Answer, RankedChunk, RetrievalResult

DATA = Path(__file__).resolve().parents[1] / "data" / "titles"
QUESTIONS, CORPUS = DATA / "questions.json", DATA / "corpus.json"


def _write(tmp_path: Path, data: object, name: str = "q.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------------------------------
# Loading


def test_title_format_is_detected_and_loaded() -> None:
    question_set = load_questions(QUESTIONS)
    assert question_set.format == TITLES_FORMAT and len(question_set) == 5
    first = question_set.questions[0]
    assert isinstance(first, TitleQuestion)
    assert first.gold_titles == ["Marrow Creek (film)", "Ilse Vantenbrook"]
    assert (first.question_type, first.level, first.source_id, first.answer) == ("bridge", "easy", "t01", "Haldersee")
    assert first.supporting_facts[1].title == "Ilse Vantenbrook" and first.supporting_facts[1].sentence == 0
    assert not first.is_null and first.gold_facts == [] and first.has_full_metadata
    assert first.id.startswith("q00000-")
    assert question_set.type_counts == {"bridge": 3, "comparison": 2}
    assert "5 title-scored questions" in question_set.describe()
    # every gold title is a document of the corpus written beside it, which is the default corpus for the file
    titles = {a.title for a in load_corpus(CORPUS)}
    assert all(set(q.gold_titles) <= titles for q in question_set.questions)
    assert default_corpus(question_set) == CORPUS


def test_explicit_format_and_multihop_detection(tmp_path: Path) -> None:
    assert load_questions(QUESTIONS, "titles").format == TITLES_FORMAT
    with pytest.raises(DatasetError, match="no 'question_type'"):  # the MultiHop-RAG loader names what is missing
        load_questions(QUESTIONS, "multihop-rag")
    with pytest.raises(DatasetError, match="Unknown questions format"):
        load_questions(QUESTIONS, "wiki")
    evidence = [{"title": "T", "fact": "f"}]
    multihop = [{"query": "q?", "answer": "a", "question_type": "inference_query", "evidence_list": evidence}]
    loaded = load_questions(_write(tmp_path, multihop))
    assert loaded.format == MULTIHOP_FORMAT and isinstance(loaded.questions[0], Question)
    # a record with both gold_titles and an evidence_list stays a MultiHop-RAG record
    both = [{**multihop[0], "gold_titles": ["T"]}]
    assert load_questions(_write(tmp_path, both, "both.json")).format == MULTIHOP_FORMAT


def test_title_file_errors_name_the_record(tmp_path: Path) -> None:
    good = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    mixed = [good[0], {"query": "q?", "answer": "a", "question_type": "inference_query", "evidence_list": []}]
    with pytest.raises(DatasetError, match="mixes formats: record 0"):
        load_questions(_write(tmp_path, mixed))
    with pytest.raises(DatasetError, match="record 1 names no evidence document"):
        load_questions(_write(tmp_path, [good[0], {**good[1], "gold_titles": []}]), "titles")
    with pytest.raises(DatasetError, match="record 0 has no 'question' \\(or 'query'\\)"):
        load_questions(_write(tmp_path, [{"gold_titles": ["A"]}]))
    with pytest.raises(DatasetError, match="supporting_facts"):
        load_questions(_write(tmp_path, [{**good[0], "supporting_facts": [{"title": "A"}]}]))


def test_type_filter_uses_the_files_types() -> None:
    questions = load_questions(QUESTIONS).questions
    assert [q.query[:8] for q in filter_types(questions, ["comparison"])] == ["Who was ", "Are Hald"]
    with pytest.raises(DatasetError, match="this file has"):
        filter_types(questions, ["inference"])


# ---------------------------------------------------------------------------------------------------------------------
# Scoring by title


def test_chunks_of_one_document_count_once() -> None:
    # chunks: A A C A B D ... -> distinct titles A(1) C(2) B(3) D(4)
    score = score_titles(["A", "A", "C", "A", "B", "D"], ["A", "B"])
    assert score.gold_title_ranks == [1, 3]
    assert (score.perfect_at_2, score.perfect_at_5, score.perfect_at_8, score.perfect_at_10) == (0.0, 1.0, 1.0, 1.0)
    assert (score.recall_at_2, score.recall_at_5) == (0.5, 1.0)
    assert score.mrr == 1.0 and score.titles_retrieved == 4.0


def test_k_counts_distinct_titles_not_chunk_ranks() -> None:
    # the second gold document is the 12th chunk but the 8th distinct title: Perfect@8 holds, Perfect@5 does not
    chunks = ["X1", "X1", "G1", "X2", "X2", "X3", "X4", "X4", "X5", "X5", "X6", "G2", "X7", "X8"]
    score = score_titles(chunks, ["G1", "G2"])
    assert score.gold_title_ranks == [2, 8]
    assert (score.perfect_at_2, score.perfect_at_5, score.perfect_at_8, score.perfect_at_10) == (0.0, 0.0, 1.0, 1.0)
    assert (score.recall_at_2, score.recall_at_5) == (0.5, 0.5)
    assert score.mrr == pytest.approx(1 / 2) and score.titles_retrieved == 10.0


def test_missing_gold_and_title_normalisation() -> None:
    nfd = unicodedata.normalize("NFD", "Alû")
    score = score_titles([f" {nfd} ", "Other"], ["Alû", "Lilu (mythology)", "Alû"])  # duplicate gold counted once
    assert score.gold_title_ranks == [1, None]
    assert (score.perfect_at_10, score.recall_at_2, score.recall_at_5, score.mrr) == (0.0, 0.5, 0.5, 1.0)
    none = score_titles([], ["A"])
    assert (none.perfect_at_2, none.recall_at_5, none.mrr, none.titles_retrieved) == (0.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        score_titles(["A"], [])


# ---------------------------------------------------------------------------------------------------------------------
# Runner, summary and report on hand-computed retrievals

# Per question (file order): the titles of the chunks a scripted system returns, best first, and the distinct-title
# ranks of the two gold titles they give.
SCRIPTED = {
    "t01": ["Marrow Creek (film)", "Marrow Creek (film)", "Ilse Vantenbrook", "Haldersee"],  # ranks 1, 2
    "t02": ["The Glass Orchard", "Larkspur Prize", "Larkspur Prize", "Tremont Vale", "Quillon", "Corvin Ashdale"],
    # -> The Glass Orchard 1, Corvin Ashdale 5 (chunk rank 6)
    "t03": ["Ilse Vantenbrook", "Haldersee", "Quillon"],  # 1, missing
    "t04": ["Quillon", "Haldersee", "Tremont Vale", "Ostrander River", "Marrow (band)", "Marrow Creek (film)"]
    + ["Corvin Ashdale", "Larkspur Prize"],  # -> 7, 8
    "t05": ["Quillon", "Tremont Vale", "Haldersee"],  # 3, 2
}


class Scripted:
    name = "scripted"

    def __init__(self, by_query: dict[str, list[str]]) -> None:
        self.by_query = by_query
        self.asked: list[str] = []

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        self.asked.append(question)
        chunks = [
            RankedChunk(chunk_id=f"{title}#{i}", document_id=title, title=title, text=f"text of {title}", score=-i)
            for i, title in enumerate(self.by_query[question])
        ]
        return RetrievalResult(mode=self.name, chunks=chunks[:top_k], timings_ms={"scripted": 1.0})


class SaysYes:
    name = "says-yes"

    def answer(self, question: str, result: RetrievalResult) -> Answer:
        return Answer(text="Yes", answerer="stub")


def _scripted_run(tmp_path: Path, answers: bool = False, warm: list[str] | None = None) -> tuple[Path, Scripted]:
    question_set = load_questions(QUESTIONS)
    by_query = {q.query: SCRIPTED[q.source_id or ""] for q in question_set.questions if isinstance(q, TitleQuestion)}
    questions = question_set.questions
    manifest = RunManifest(
        questions_path=str(QUESTIONS),
        questions_sha256="0" * 64,
        question_format=question_set.format,
        corpus_path=str(CORPUS),
        top_k=10,
        answers=answers,
        seed=0,
        systems=["scripted", "oracle"],
        question_ids=[q.id for q in questions],
    )
    chunks = []
    for article in load_corpus(CORPUS):
        for index in range(2):  # two chunks per document: the oracle must return one per gold title
            chunks.append(Chunk(id=f"{article.title}#{index}", document_id=article.title, index=index,
                                text=article.body, title=article.title))  # fmt: skip
    scripted = Scripted(by_query)
    systems = {"scripted": scripted, "oracle": OracleRetriever(chunks, questions)}
    out = tmp_path / "run"
    plan = RunPlan(questions, systems, out, manifest, answerer=SaysYes() if answers else None, progress=False)
    plan.warm = None if warm is None else lambda: warm.append("warmed")
    run(plan)
    return out, scripted


def test_each_system_answers_its_first_question_untimed_after_the_caches_are_warmed(tmp_path: Path) -> None:
    warm: list[str] = []
    out, scripted = _scripted_run(tmp_path, warm=warm)
    queries = [q.query for q in load_questions(QUESTIONS).questions]
    assert warm == ["warmed"]
    assert scripted.asked == [queries[0], *queries]  # the warm-up question, then the timed run
    ids = [q.id for q in load_questions(QUESTIONS).questions]
    assert len(load_records(out, "scripted", ids)) == len(ids)  # the warm-up leaves no record


def test_runner_scores_titles_per_type_and_level(tmp_path: Path) -> None:
    out, _ = _scripted_run(tmp_path)
    ids = [q.id for q in load_questions(QUESTIONS).questions]
    records = load_records(out, "scripted", ids)
    assert [r.title_retrieval.gold_title_ranks for r in records if r.title_retrieval] == [
        [1, 2],
        [1, 5],
        [1, None],
        [7, 8],
        [3, 2],
    ]
    assert all(r.retrieval is None and r.level for r in records)
    summary = summarize_system("scripted", records)
    overall = summary.overall.retrieval
    assert summary.scoring == "titles" and summary.overall.scored == 5
    assert overall["perfect_at_2"] == pytest.approx(1 / 5)  # t01
    assert overall["perfect_at_5"] == pytest.approx(3 / 5)  # t01, t02, t05
    assert overall["perfect_at_8"] == pytest.approx(4 / 5)  # + t04; t03 misses a gold title
    assert overall["perfect_at_10"] == pytest.approx(4 / 5)
    assert overall["recall_at_2"] == pytest.approx((1 + 0.5 + 0.5 + 0 + 0.5) / 5)
    assert overall["recall_at_5"] == pytest.approx((1 + 1 + 0.5 + 0 + 1) / 5)
    assert overall["mrr"] == pytest.approx((1 + 1 + 1 + 1 / 7 + 1 / 2) / 5)
    assert overall["titles_retrieved"] == pytest.approx((3 + 5 + 3 + 8 + 3) / 5)
    assert set(summary.by_type) == {"bridge", "comparison"}
    assert summary.by_type["bridge"].retrieval["perfect_at_5"] == pytest.approx(2 / 3)  # t01, t02 (not t04)
    assert summary.by_type["comparison"].retrieval["recall_at_2"] == pytest.approx((0.5 + 0.5) / 2)
    assert list(summary.by_level) == ["easy", "medium", "hard"]
    assert summary.by_level["hard"].retrieval["perfect_at_8"] == 1.0
    assert summary.by_level["medium"].retrieval["perfect_at_8"] == pytest.approx(1 / 2)
    assert "p50" in summary.latency_ms["retrieve"] and "p95" in summary.latency_ms["retrieve"]
    oracle = summarize_system("oracle", load_records(out, "oracle", ids))
    assert oracle.overall.retrieval["perfect_at_2"] == 1.0 and oracle.overall.retrieval["titles_retrieved"] == 2.0


def test_summary_json_and_side_by_side_report(tmp_path: Path) -> None:
    out, _ = _scripted_run(tmp_path)
    _, report = build_report(out, command="graphwire eval --questions tests/data/titles/questions.json")
    payload = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert payload["manifest"]["question_format"] == "titles"
    scripted = next(s for s in payload["systems"] if s["system"] == "scripted")
    metrics = {"perfect_at_2", "perfect_at_5", "perfect_at_8", "perfect_at_10", "recall_at_2", "recall_at_5", "mrr"}
    assert set(scripted["overall"]["retrieval"]) >= metrics
    assert scripted["overall"]["retrieval"]["perfect_at_8"] == pytest.approx(0.8)
    assert set(scripted["by_type"]) == {"bridge", "comparison"}
    assert set(scripted["by_level"]) == {"easy", "medium", "hard"}
    assert {"p50", "p95"} <= set(scripted["latency_ms"]["retrieve"])
    assert "targets" not in payload and "target" not in report.read_text(encoding="utf-8").lower()
    text = report.read_text(encoding="utf-8")
    assert "## Retrieval by document title (every mode side by side)" in text
    assert "| System | Scored | Perfect@2 | Perfect@5 | Perfect@8 | Perfect@10 | Recall@2 | Recall@5 | MRR |" in text
    assert "| scripted | 5 | 0.200 | 0.600 | 0.800 | 0.800 | 0.500 | 0.700 |" in text
    assert "| oracle | 5 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 2.00 |" in text
    assert "### Per question type" in text and "| scripted | bridge | 3 |" in text
    assert "### Per level" in text and "| oracle | hard | 1 |" in text
    assert text.count("DISTINCT document titles") == 1 and "with full evidence metadata" not in text
    assert (out / "charts" / "per_type_perfect_at_8.png").stat().st_size > 1000


def test_answers_use_the_strict_and_official_scorers(tmp_path: Path) -> None:
    out, _ = _scripted_run(tmp_path, answers=True)
    records = load_records(out, "scripted", [q.id for q in load_questions(QUESTIONS).questions])
    outcomes = {r.gold_answer: r.answer_score.strict for r in records if r.answer_score}
    assert outcomes["yes"] is Outcome.CORRECT and outcomes["Haldersee"] is Outcome.WRONG
    summary = summarize_system("scripted", records)
    answers = summary.overall.answers
    assert answers is not None and answers.strict_accuracy == pytest.approx(1 / 5)
    assert answers.hallucination_rate is None and answers.miss_rate == 0.0  # no abstention class in this format


# ---------------------------------------------------------------------------------------------------------------------
# The command line


def _invoke(*args: str) -> tuple[int, str]:
    app = typer.Typer()
    app.command()(eval_command)
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())  # rich wraps long lines


def test_cli_format_errors_fail_before_any_store(tmp_path: Path) -> None:
    code, output = _invoke("--questions", str(QUESTIONS), "--format", "wiki", "--out", str(tmp_path / "a"))
    assert code == 2 and "unknown --format 'wiki'" in output
    code, output = _invoke("--questions", str(QUESTIONS), "--format", "multihop-rag", "--out", str(tmp_path / "b"))
    assert code == 2 and "record 0 has no 'question_type' string" in output
    good = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    multihop = {
        "query": "q",
        "answer": "a",
        "question_type": "inference_query",
        "evidence_list": [{"title": "T", "fact": "F"}],
    }
    mixed = _write(tmp_path, [good[0], multihop])
    code, output = _invoke("--questions", str(mixed), "--out", str(tmp_path / "c"))
    assert code == 2 and "mixes formats" in output
