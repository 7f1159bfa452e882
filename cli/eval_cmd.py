"""`graphwire eval`: score retrieval modes (and answers) side by side in one run folder, on MultiHop-RAG questions
(scored by gold fact) or on title-scored encyclopedia sets like ../shared/data/hotpotqa (scored by document title)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from graphwire.cli.common import NEO4J_ERRORS, check_top_k, fail, neo4j_error_line
from graphwire.core.paths import DEMO_DIR
from graphwire.core.settings import get_settings
from graphwire.eval.datasets import DEFAULT_QUESTIONS
from graphwire.eval.harness import EvalOptions, evaluate
from graphwire.eval.questions import FORMATS, DatasetError
from graphwire.eval.report import build_report
from graphwire.eval.runner import RunMismatchError
from graphwire.eval.summary import TITLES
from graphwire.eval.systems import UnknownSystemError

console = Console(stderr=True)
DEFAULT_OUT = Path(".graphwire/eval/run")
HEADLINE = (
    ("perfect_at_10", "Perfect@10"),
    ("perfect_at_4", "Perfect@4"),
    ("map_at_10", "MAP@10"),
    ("hits_at_10", "Hits@10"),
)
TITLE_HEADLINE = (
    ("perfect_at_8", "Perfect@8"),
    ("perfect_at_5", "Perfect@5"),
    ("recall_at_5", "Recall@5"),
    ("recall_at_2", "Recall@2"),
    ("mrr", "MRR"),
)


def _split(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def eval_command(
    questions: Annotated[
        Path,
        typer.Option(
            help="Questions file: MultiHop-RAG (query, answer, evidence_list) or title-scored (question, answer, type, "
            "evidence titles; or gold_titles)."
        ),
    ] = DEFAULT_QUESTIONS,
    demo: Annotated[
        bool,
        typer.Option(
            "--demo", help="Score the demo's own questions (the demo corpus must be ingested: `graphwire demo`)."
        ),
    ] = False,
    question_format: Annotated[
        str,
        typer.Option(
            "--format",
            help="Questions format: auto (detected: records with gold_titles and no evidence_list are title-scored), "
            "multihop-rag, or titles (the encyclopedia format of ../shared/data/hotpotqa).",
        ),
    ] = "auto",
    corpus: Annotated[
        Path | None,
        typer.Option(
            help="The corpus the graph and chunk store were built from (default: corpus.json beside a title-scored "
            "questions file, else the shared MultiHop-RAG corpus)."
        ),
    ] = None,
    systems: Annotated[
        list[str] | None,
        typer.Option(
            "--systems",
            "-s",
            help="Modes to run, comma-separated; 'all' (default) = every registered mode; 'oracle' = the ceiling.",
        ),
    ] = None,
    top_k: Annotated[
        int,
        typer.Option(min=1, help="Chunks retrieved per question, at most MAX_TOP_K (>= 10 for Perfect@10)."),
    ] = 10,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N selected questions.")] = None,
    sample: Annotated[int | None, typer.Option(min=1, help="A random sample of N questions (fixed --seed).")] = None,
    seed: Annotated[int, typer.Option(help="Seed for --sample.")] = 0,
    types: Annotated[
        list[str] | None,
        typer.Option(
            "--type",
            "-t",
            help="Question types to keep: inference, comparison, temporal, null (title-scored: the file's own types, "
            "e.g. bridge, comparison).",
        ),
    ] = None,
    answerer: Annotated[
        str, typer.Option(help="auto (LLM when configured, else extractive), extractive or llm.")
    ] = "auto",
    no_answers: Annotated[bool, typer.Option("--no-answers", help="Retrieval only: no answerer.")] = False,
    out: Annotated[Path, typer.Option(help="Run folder (re-running it resumes).")] = DEFAULT_OUT,
    report_only: Annotated[bool, typer.Option("--report-only", help="Rebuild report and charts from --out.")] = False,
    no_charts: Annotated[bool, typer.Option("--no-charts", help="Skip the PNG charts.")] = False,
) -> None:
    """Evaluate retrieval modes side by side (MultiHop-RAG or title-scored sets); writes records, summary, report."""
    command = "graphwire " + " ".join(shlex.quote(arg) for arg in sys.argv[1:])
    settings = get_settings()
    check_top_k(top_k, settings)
    if demo:
        questions = DEMO_DIR / "questions.json"
    try:
        if question_format not in FORMATS:
            raise DatasetError(f"unknown --format {question_format!r}; expected one of {', '.join(FORMATS)}")
        if report_only:
            _, report = build_report(out, command=None, charts=not no_charts)
            console.print(f"report: {report}")
            return
        options = EvalOptions(
            questions=questions,
            question_format=question_format,
            corpus=corpus,
            systems=_split(systems),
            top_k=top_k,
            limit=limit,
            sample=sample,
            seed=seed,
            types=_split(types),
            answers=not no_answers,
            answerer=answerer,
            out=out,
            charts=not no_charts,
            command=command,
        )
        outcome = evaluate(options, settings)
    except (DatasetError, UnknownSystemError, RunMismatchError, FileNotFoundError) as exc:
        console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None
    except NEO4J_ERRORS as exc:
        raise fail(neo4j_error_line(settings, exc)) from None
    except RuntimeError as exc:  # Graph.from_settings: no password, a bad URI
        raise fail(str(exc)) from None
    titles = any(s.scoring == TITLES for s in outcome.summaries)
    if titles:
        console.print(f"{outcome.selected} title-scored questions")
    else:
        console.print(f"{outcome.selected} questions ({outcome.full_metadata} with full evidence metadata)")
    console.print(outcome.corpus_verdict)
    for summary in outcome.summaries:
        headline = TITLE_HEADLINE if summary.scoring == TITLES else HEADLINE
        shown = "  ".join(f"{label} {summary.overall.retrieval.get(key, 0.0):.3f}" for key, label in headline)
        console.print(f"{summary.system:>10}: {shown}  errors {summary.overall.errors}")
    console.print(f"report: {outcome.report}")
