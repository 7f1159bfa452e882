"""What a run folder holds: the run manifest and one JSON record per (system, question)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from graphwire.eval.scorers import AnswerScore, RetrievalScore, TitleRetrievalScore
from graphwire.retrieval.models import Usage

RUN_FILE = "run.json"
RECORDS_DIR = "records"


class RunManifest(BaseModel):
    """What was asked for; a resumed run must ask for the same retrieval depth on the same questions file."""

    questions_path: str
    questions_sha256: str
    question_format: str = "multihop-rag"  # or "titles" (scored by document title); see eval.datasets
    corpus_path: str
    top_k: int
    answers: bool
    seed: int
    sample_size: int | None = None
    limit: int | None = None
    types: list[str] = Field(default_factory=list)
    systems: list[str] = Field(default_factory=list)
    question_ids: list[str] = Field(default_factory=list)
    corpus_check: dict[str, Any] = Field(default_factory=dict)
    answerer: str | None = None
    command: str | None = None  # the command line that made (or last resumed) the run
    git_commits: list[str] = Field(default_factory=list)  # the code each (resumed) run started from, in order


class RecordedChunk(BaseModel):
    chunk_id: str
    document_id: str
    title: str
    source: str | None = None
    score: float = 0.0


class QuestionRecord(BaseModel):
    """One system's retrieval (and answer) for one question, with its scores, timings and LLM usage."""

    question_id: str
    index: int
    question_type: str
    query: str
    gold_answer: str
    system: str
    top_k: int
    has_full_metadata: bool = True
    chunks: list[RecordedChunk] = Field(default_factory=list)
    retrieval: RetrievalScore | None = None  # None for null questions (excluded from retrieval metrics)
    level: str | None = None  # title-scored sets: the question's difficulty level (easy, medium, hard)
    title_retrieval: TitleRetrievalScore | None = None  # title-scored sets: scores by distinct document title
    answer: str | None = None
    answerer: str | None = None
    answer_kind: str | None = None  # how it was made (`Answer.answer_kind`: facts, entity, quote, ...)
    quotes: list[str] = Field(default_factory=list)  # the sentences its citations quote
    answer_score: AnswerScore | None = None
    latency_ms: dict[str, float] = Field(default_factory=dict)  # "retrieve", "answer", "total" + retriever stages
    usage: Usage = Field(default_factory=Usage)
    facts: int = 0
    entities: int = 0
    details: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None


def system_dir(run_dir: Path, system: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", system)
    return run_dir / RECORDS_DIR / safe


def record_path(run_dir: Path, system: str, question_id: str) -> Path:
    return system_dir(run_dir, system) / f"{question_id}.json"


def write_json_atomic(path: Path, payload: str) -> None:
    """Write through a temporary file and rename, so an interrupted run never leaves half a record."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(payload, encoding="utf-8")
    os.replace(tmp, path)


def save_record(run_dir: Path, record: QuestionRecord) -> None:
    write_json_atomic(record_path(run_dir, record.system, record.question_id), record.model_dump_json(indent=1))


def load_record(path: Path) -> QuestionRecord | None:
    """A finished record, or None when the file is missing or unreadable (it is then re-run)."""
    try:
        return QuestionRecord.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def load_records(run_dir: Path, system: str, question_ids: list[str]) -> list[QuestionRecord]:
    found = (load_record(record_path(run_dir, system, qid)) for qid in question_ids)
    return [record for record in found if record is not None]


def load_manifest(run_dir: Path) -> RunManifest | None:
    path = run_dir / RUN_FILE
    if not path.exists():
        return None
    return RunManifest.model_validate(json.loads(path.read_text(encoding="utf-8")))


def save_manifest(run_dir: Path, manifest: RunManifest) -> None:
    write_json_atomic(run_dir / RUN_FILE, manifest.model_dump_json(indent=1))
