"""`graphwire eval` on a user's own data: the demo's questions (`question`, `type`, `evidence` titles, null questions
with no evidence) and a JSONL corpus as `graphwire ingest` reads it."""

import json
from pathlib import Path

import pytest

from graphwire.core.paths import DEMO_DIR
from graphwire.eval.datasets import default_corpus, load_corpus, load_questions
from graphwire.eval.questions import TITLES_FORMAT, DatasetError, TitleQuestion


def test_the_demo_questions_load_as_title_scored_with_their_null_questions() -> None:
    questions = load_questions(DEMO_DIR / "questions.json")
    assert questions.format == TITLES_FORMAT and len(questions) == 15
    first = questions.questions[0]
    assert isinstance(first, TitleQuestion)
    assert first.query.startswith("Who is the chief executive of the Berlin chip startup")
    assert first.gold_titles == [
        "Paradigm Ventures leads $40 million round in Lumen Labs",
        "Lumen Labs names Ada Park chief executive as it readies first chip",
    ]
    nulls = [q for q in questions.questions if q.is_null]
    assert [q.source_id for q in nulls] == ["demo-14", "demo-15"]
    assert all(q.answer == "Insufficient information." for q in nulls)


def test_the_demo_corpus_is_found_beside_its_questions_and_read_as_jsonl() -> None:
    questions = load_questions(DEMO_DIR / "questions.json")
    corpus_path = default_corpus(questions)
    assert corpus_path == DEMO_DIR / "articles.jsonl"
    corpus = load_corpus(corpus_path)
    assert len(corpus) == 22
    titles = {article.title for article in corpus}
    assert all(title in titles for q in questions.questions for title in q.gold_titles)


def test_evidence_may_be_objects_with_a_title_and_no_fact(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    record = {"question": "Who?", "answer": "A", "type": "inference", "evidence": [{"title": "T1"}, "T2", "T1"]}
    path.write_text(json.dumps([record]), encoding="utf-8")
    [question] = load_questions(path).questions
    assert question.gold_titles == ["T1", "T2"] and not question.is_null


def test_a_non_null_question_without_evidence_names_the_record(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    good = {"question": "Who?", "answer": "A", "type": "inference", "evidence": ["T1"]}
    path.write_text(json.dumps([good, {**good, "evidence": []}]), encoding="utf-8")
    with pytest.raises(DatasetError, match="record 1 names no evidence document"):
        load_questions(path)


def test_a_broken_jsonl_corpus_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"title": "T", "body": "B"}\n\n{"title": \n', encoding="utf-8")
    with pytest.raises(DatasetError, match="line 3 is not valid JSON"):
        load_corpus(path)


def test_multihop_records_whose_evidence_has_titles_only_are_title_scored(tmp_path: Path) -> None:
    """Article-level scores need only the titles: an evidence_list without facts is scored by title."""
    path = tmp_path / "q.json"
    records = [
        {"query": "Who?", "answer": "A", "question_type": "inference_query", "evidence_list": [{"title": "T1"}]},
        {"query": "Nobody?", "answer": "Insufficient information.", "question_type": "null_query", "evidence_list": []},
    ]
    path.write_text(json.dumps(records), encoding="utf-8")
    loaded = load_questions(path)
    assert loaded.format == TITLES_FORMAT
    assert loaded.questions[0].gold_titles == ["T1"] and loaded.questions[1].is_null
