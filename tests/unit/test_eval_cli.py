"""`graphwire eval` error messages for missing or malformed input files (they fail before any store is touched)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from graphwire.cli.eval_cmd import eval_command

app = typer.Typer()
app.command()(eval_command)
runner = CliRunner()


def _invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())  # rich wraps long lines


def _corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps([{"title": "T", "body": "B."}]), encoding="utf-8")
    return path


def test_missing_questions_file(tmp_path: Path) -> None:
    code, output = _invoke("--questions", str(tmp_path / "missing.json"), "--corpus", str(_corpus(tmp_path)))
    assert code == 2
    assert "Questions file not found" in output and "missing.json" in output


def test_malformed_questions_json(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('[{"query": "a", "answer": "b",', encoding="utf-8")
    code, output = _invoke("--questions", str(bad), "--corpus", str(_corpus(tmp_path)))
    assert code == 2
    assert "broken.json is not valid JSON" in output


def test_record_missing_a_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text(json.dumps([{"query": "a", "question_type": "null_query", "evidence_list": []}]), encoding="utf-8")
    code, output = _invoke("--questions", str(path), "--corpus", str(_corpus(tmp_path)))
    assert code == 2
    assert "record 0 has no 'answer' string" in output


def test_missing_corpus_file(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text(
        json.dumps([{"query": "a", "answer": "b", "question_type": "null_query", "evidence_list": []}]),
        encoding="utf-8",
    )
    code, output = _invoke("--questions", str(path), "--corpus", str(tmp_path / "nocorpus.json"))
    assert code == 2
    assert "Corpus file not found" in output and "nocorpus.json" in output


def test_report_only_on_an_empty_folder(tmp_path: Path) -> None:
    code, output = _invoke("--report-only", "--out", str(tmp_path / "nothing"))
    assert code == 2
    assert "holds no run" in output
