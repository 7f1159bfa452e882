"""Runs named retrievers (and optionally one answerer) over questions, one resumable JSON record per question."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from graphwire.eval.questions import EvalQuestion, TitleQuestion
from graphwire.eval.records import (
    QuestionRecord,
    RecordedChunk,
    RunManifest,
    load_manifest,
    load_record,
    record_path,
    save_manifest,
    save_record,
)
from graphwire.eval.scorers import score_answer, score_retrieval, score_titles
from graphwire.retrieval.base import Answerer, Retriever
from graphwire.retrieval.models import RetrievalResult


class RunMismatchError(ValueError):
    """The run folder holds a run with different settings; resuming it would mix incomparable records."""


@dataclass
class RunPlan:
    questions: Sequence[EvalQuestion]
    systems: dict[str, Retriever]
    out: Path
    manifest: RunManifest
    answerer: Answerer | None = None
    progress: bool = True
    on_record: Callable[[QuestionRecord], None] | None = field(default=None)
    warm: Callable[[], None] | None = field(default=None)  # shared caches read before the first timed question


def check_resumable(out: Path, manifest: RunManifest) -> RunManifest:
    """Refuse to resume a run folder made with another questions file, depth or answer setting; else merge."""
    previous = load_manifest(out)
    if previous is None:
        return manifest
    for key in ("questions_sha256", "top_k", "answers", "corpus_path"):
        before, now = getattr(previous, key), getattr(manifest, key)
        if before != now:
            raise RunMismatchError(
                f"{out} holds a run with {key}={before!r}, this run asks for {key}={now!r}; use another --out folder"
            )
    commits = list(dict.fromkeys([*previous.git_commits, *manifest.git_commits]))
    systems = list(dict.fromkeys([*previous.systems, *manifest.systems]))  # earlier systems' records stay reported
    return manifest.model_copy(update={"git_commits": commits, "systems": systems})


def _is_finished(record: QuestionRecord | None, top_k: int, answers: bool) -> bool:
    if record is None or record.error is not None or record.top_k != top_k:
        return False
    return not answers or record.answer is not None or not record.gold_answer  # no gold answer: nothing to score


def _recorded_chunks(result: RetrievalResult, top_k: int) -> list[RecordedChunk]:
    return [
        RecordedChunk(chunk_id=c.chunk_id, document_id=c.document_id, title=c.title, source=c.source, score=c.score)
        for c in result.chunks[:top_k]
    ]


def _small_details(details: dict[str, object]) -> dict[str, object]:
    """Keep scalar details (router choice, contribution counts); drop bulky payloads."""
    return {k: v for k, v in details.items() if isinstance(v, str | int | float | bool) or v is None}


def run_one(
    question: EvalQuestion, system: str, retriever: Retriever, top_k: int, answerer: Answerer | None
) -> QuestionRecord:
    """Retrieve (and answer) one question with one system; failures become a record with `error` set."""
    record = QuestionRecord(
        question_id=question.id,
        index=question.index,
        question_type=question.question_type,
        query=question.query,
        gold_answer=question.answer,
        system=system,
        top_k=top_k,
        has_full_metadata=question.has_full_metadata,
        level=question.level if isinstance(question, TitleQuestion) else None,
    )
    started = time.perf_counter()
    try:
        result = retriever.retrieve(question.query, top_k=top_k)
    except Exception as exc:  # a failing question must not end a 2,556-question run
        record.error = f"retrieve: {type(exc).__name__}: {exc}"
        return record
    retrieve_ms = (time.perf_counter() - started) * 1000
    record.latency_ms = {f"stage:{name}": float(ms) for name, ms in result.timings_ms.items()}
    record.latency_ms["retrieve"] = retrieve_ms
    top = result.chunks[:top_k]
    record.chunks = _recorded_chunks(result, top_k)
    record.facts, record.entities = len(result.facts), len(result.entities)
    record.details = _small_details(result.details)
    if question.is_null:
        pass  # an unanswerable question: only its answer (an abstention) is scored
    elif isinstance(question, TitleQuestion):
        record.title_retrieval = score_titles([c.title for c in top], question.gold_titles)
    else:
        record.retrieval = score_retrieval(
            [c.text for c in top], [c.title for c in top], question.gold_facts, question.gold_titles
        )
    if answerer is not None and (question.answer or not isinstance(question, TitleQuestion)):
        answer_started = time.perf_counter()
        try:
            answer = answerer.answer(question.query, result)
        except Exception as exc:
            record.error = f"answer: {type(exc).__name__}: {exc}"
            return record
        record.latency_ms["answer"] = (time.perf_counter() - answer_started) * 1000
        record.answer, record.answerer, record.usage = answer.text, answer.answerer, answer.usage
        record.answer_kind = answer.answer_kind.value
        record.quotes = [c.quote for c in answer.citations if c.quote]
        answerable = isinstance(question, TitleQuestion) and not question.is_null  # title sets may hold null ones
        record.answer_score = score_answer(answer.text, question.answer, answerable)
    record.latency_ms["total"] = (time.perf_counter() - started) * 1000
    return record


def _warm_up(retriever: Retriever, question: str, top_k: int) -> None:
    try:
        retriever.retrieve(question, top_k=top_k)
    except Exception:  # the timed run records the failure with its question
        return


def run(plan: RunPlan) -> dict[str, int]:
    """Run every system over every question, skipping finished records; returns new records per system.

    Latencies describe a warm process, as a service answers after its first requests: the shared caches are read
    first, and each system answers its first question once, untimed, before its timed run (loading its model and
    building its indexes there)."""
    save_manifest(plan.out, check_resumable(plan.out, plan.manifest))
    done: dict[str, int] = {}
    top_k, answers = plan.manifest.top_k, plan.manifest.answers
    if plan.warm is not None:
        plan.warm()
    for system, retriever in plan.systems.items():
        todo = [
            q
            for q in plan.questions
            if not _is_finished(load_record(record_path(plan.out, system, q.id)), top_k, answers)
        ]
        done[system] = 0
        if todo:
            _warm_up(retriever, todo[0].query, top_k)
        bar = tqdm(todo, desc=f"{system} ({len(plan.questions) - len(todo)} already done)", disable=not plan.progress)
        for question in bar:
            record = run_one(question, system, retriever, top_k, plan.answerer if answers else None)
            save_record(plan.out, record)
            done[system] += 1
            if plan.on_record is not None:
                plan.on_record(record)
    return done
