"""One entry point for `graphwire eval`: select questions, check the corpus, run the systems, write the report."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from pydantic import BaseModel, Field

from graphwire.core.settings import Settings
from graphwire.eval.datasets import DEFAULT_QUESTIONS, default_corpus, load_corpus, load_questions
from graphwire.eval.records import RunManifest
from graphwire.eval.report import build_report
from graphwire.eval.runner import RunPlan, run
from graphwire.eval.selection import select
from graphwire.eval.summary import SystemSummary
from graphwire.eval.systems import ORACLE, SystemBuilder, available_systems


class EvalOptions(BaseModel):
    questions: Path = DEFAULT_QUESTIONS
    question_format: str = "auto"  # auto (detected per file), multihop-rag or titles
    corpus: Path | None = None  # None: corpus.json beside a title-scored file, else the shared MultiHop-RAG corpus
    systems: list[str] = Field(default_factory=list)  # empty = every registered mode
    top_k: int = Field(default=10, ge=1, le=100)
    limit: int | None = Field(default=None, ge=1)
    sample: int | None = Field(default=None, ge=1)
    seed: int = 0
    types: list[str] = Field(default_factory=list)
    answers: bool = True
    answerer: str = "auto"  # registry answerer name: auto, extractive, llm
    out: Path = Path(".graphwire/eval/run")
    charts: bool = True
    progress: bool = True
    command: str | None = None  # the command line, written into the report


class EvalOutcome(BaseModel):
    out: Path
    report: Path
    selected: int
    full_metadata: int
    new_records: dict[str, int]
    corpus_verdict: str
    summaries: list[SystemSummary]


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git_commit() -> str | None:
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


def expand_systems(names: list[str]) -> list[str]:
    """`all` (or nothing) means every registered mode; order kept, duplicates dropped."""
    registered = [name for name in available_systems() if name != ORACLE]
    expanded = [m for name in (names or ["all"]) for m in (registered if name == "all" else [name])]
    return list(dict.fromkeys(expanded))


def evaluate(options: EvalOptions, settings: Settings) -> EvalOutcome:
    """Load and select the questions, check stores against the corpus, run (resuming), then report."""
    question_set = load_questions(options.questions, options.question_format)
    corpus_path = options.corpus or default_corpus(question_set)
    corpus = load_corpus(corpus_path)
    questions = select(question_set, types=options.types, sample_size=options.sample, seed=options.seed)
    questions = questions[: options.limit] if options.limit else questions
    systems = expand_systems(options.systems)
    with SystemBuilder(settings) as builder:
        retrievers = builder.retrievers(systems, questions)
        answerer = builder.answerer(options.answerer) if options.answers else None
        check = builder.corpus_check(corpus)
        manifest = RunManifest(
            questions_path=str(options.questions),
            questions_sha256=file_sha256(options.questions),
            question_format=question_set.format,
            corpus_path=str(corpus_path),
            top_k=options.top_k,
            answers=options.answers,
            seed=options.seed,
            sample_size=options.sample,
            limit=options.limit,
            types=options.types,
            systems=systems,
            question_ids=[q.id for q in questions],
            corpus_check={"verdict": check.verdict, **check.model_dump()},
            answerer=getattr(answerer, "name", None),
            git_commits=[commit] if (commit := git_commit()) else [],
            command=options.command,
        )
        plan = RunPlan(
            questions,
            retrievers,
            options.out,
            manifest,
            answerer=answerer,
            progress=options.progress,
            warm=builder.warm,
        )
        new_records = run(plan)
    summaries, report = build_report(options.out, command=options.command, charts=options.charts)
    return EvalOutcome(
        out=options.out,
        report=report,
        selected=len(questions),
        full_metadata=sum(1 for q in questions if q.has_full_metadata),
        new_records=new_records,
        corpus_verdict=check.verdict,
        summaries=summaries,
    )
