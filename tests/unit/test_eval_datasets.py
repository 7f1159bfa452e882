"""Questions-file loading: tolerated gaps, clear errors naming file and record, subsets and fixed-seed samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphwire.eval.datasets import load_corpus, load_questions
from graphwire.eval.questions import DatasetError
from graphwire.eval.selection import sample, select


def _write(tmp_path: Path, data: object, name: str = "q.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


FULL = {"title": "T1", "fact": "F1.", "source": "S", "published_at": "2023-10-01T00:00:00+00:00", "url": "u1"}
BARE = {"title": "T2", "fact": "F2."}


def _records() -> list[dict[str, object]]:
    return [
        {"query": "q0?", "answer": "Yes", "question_type": "comparison_query", "evidence_list": [FULL, BARE]},
        {"query": "q1?", "answer": "Insufficient information.", "question_type": "null_query", "evidence_list": []},
        {"query": "q2?", "answer": "Google", "question_type": "inference_query", "evidence_list": [FULL]},
    ]


def test_missing_metadata_is_tolerated_and_counted(tmp_path: Path) -> None:
    qs = load_questions(_write(tmp_path, _records()))
    assert len(qs) == 3
    assert qs.full_metadata_count == 2  # the null question and q2; q0 has a bare evidence item
    assert qs.questions[0].evidence_list[1].source is None
    assert qs.questions[0].gold_titles == ["T1", "T2"]
    assert "2 with full evidence metadata" in qs.describe()


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="not found: .*nope.json"):
        load_questions(tmp_path / "nope.json")


def test_invalid_json_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[{"query": "x",\n oops]', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"bad.json is not valid JSON \(line 2"):
        load_questions(path)


def test_record_without_answer_names_the_record(tmp_path: Path) -> None:
    records = _records()
    del records[2]["answer"]
    with pytest.raises(DatasetError, match=r"q.json: record 2 has no 'answer'"):
        load_questions(_write(tmp_path, records))


def test_evidence_without_fact_names_record_and_item(tmp_path: Path) -> None:
    records = _records()
    records[0]["evidence_list"] = [FULL, {"title": "T"}]
    with pytest.raises(DatasetError, match=r"record 0, evidence item 1 has no usable 'fact'"):
        load_questions(_write(tmp_path, records))


def test_not_a_list(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="must hold a JSON list"):
        load_questions(_write(tmp_path, {"query": "x"}))


def test_type_filter_sample_and_limit(tmp_path: Path) -> None:
    qs = load_questions(_write(tmp_path, _records() * 10))
    inference = select(qs, types=["inference"])
    assert len(inference) == 10 and all(q.question_type == "inference_query" for q in inference)
    first = [q.index for q in sample(qs.questions, 7, seed=3)]
    assert first == [q.index for q in sample(qs.questions, 7, seed=3)]
    assert first == sorted(first) and len(set(first)) == 7
    assert first != [q.index for q in sample(qs.questions, 7, seed=4)]
    assert len(select(qs, limit=4)) == 4
    with pytest.raises(DatasetError, match="Unknown question type"):
        select(qs, types=["bogus"])


def test_corpus_errors_name_the_record(tmp_path: Path) -> None:
    path = _write(tmp_path, [{"title": "a", "body": "b"}, {"title": "c"}], "corpus.json")
    with pytest.raises(DatasetError, match=r"corpus.json: record 1 is malformed"):
        load_corpus(path)
