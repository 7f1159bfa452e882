"""Turns a run folder into summary.json, report.md and PNG charts (per-type bars per system, latency distribution)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from graphwire.eval.lead import Lead, lead_section, paired_leads  # noqa: E402
from graphwire.eval.records import QuestionRecord, RunManifest, load_manifest, load_records, write_json_atomic  # noqa: E402
from graphwire.eval.summary import (  # noqa: E402
    METRIC_LABELS,
    RETRIEVAL_METRICS,
    TITLE_METRICS,
    TITLES,
    AnswerMetrics,
    SystemSummary,
    summarize_system,
)

SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.md"
CHARTS_DIR = "charts"
CHART_METRICS = ("perfect_at_10", "perfect_at_4", "map_at_10")
ATTRIBUTION = (
    "Questions: MultiHop-RAG (Tang and Yang, COLM 2024, arXiv:2401.15391), ODC-BY 1.0. Retrieval metrics follow the "
    "authors' `retrieval_evaluate.py` (null questions excluded; a hit when a gold fact with spaces and newlines "
    "removed is a substring of a retrieved chunk)."
)
TITLE_SCORING = (
    "Retrieval is scored by document title: Perfect@k = every gold title among the first k DISTINCT document titles "
    "retrieved (chunks of one document count once, at their first rank); Recall@k = the share of gold titles among "
    "them; MRR = 1 / the distinct-title rank of the first gold document; titles/q = distinct titles among the top-k "
    "chunks (Perfect@10 needs 10 distinct titles in the top-k chunks)."
)
HOTPOTQA_ATTRIBUTION = (
    "Questions and passages: HotpotQA (Yang et al., EMNLP 2018), CC BY-SA 4.0; the 100-question train subset "
    "HippoRAG (Gutierrez et al., NeurIPS 2024) tuned on."
)
SHORT_TYPE = {
    "inference_query": "inference",
    "comparison_query": "comparison",
    "temporal_query": "temporal",
    "null_query": "null",
}


def shown_path(path: str) -> str:
    """A path as a report shows it: relative to the working directory when it is inside it or beside it (the
    repository and ../shared), so a committed report does not carry the machine's folders."""
    if not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith(f"..{os.sep}..") else relative


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _retrieval_table(
    rows: Sequence[tuple[str, dict[str, float], int]], names: Sequence[str] = RETRIEVAL_METRICS
) -> list[str]:
    header = "| System | Group | Scored | " + " | ".join(METRIC_LABELS[m] for m in names) + " |"
    lines = [header, "|" + "---|" * (3 + len(names))]
    for label, metrics, scored in rows:
        cells = " | ".join(_fmt(metrics.get(m), 2 if m == "titles_retrieved" else 3) for m in names)
        lines.append(f"| {label} | {scored} | {cells} |")
    return lines


def is_title_run(summaries: Sequence[SystemSummary]) -> bool:
    return bool(summaries) and all(s.scoring == TITLES for s in summaries)


def _title_retrieval_section(summaries: Sequence[SystemSummary]) -> list[str]:
    """Every mode side by side (with retrieval latency), then per question type and per level, modes side by side."""
    labels = " | ".join(METRIC_LABELS[m] for m in TITLE_METRICS)
    lines = ["## Retrieval by document title (every mode side by side)", "", TITLE_SCORING, ""]
    lines += [f"| System | Scored | {labels} | retrieve p50 ms | retrieve p95 ms |"]
    lines += ["|" + "---|" * (4 + len(TITLE_METRICS))]
    for s in summaries:
        cells = " | ".join(_fmt(s.overall.retrieval.get(m), 2 if m == "titles_retrieved" else 3) for m in TITLE_METRICS)
        stats = s.latency_ms.get("retrieve", {})
        p50, p95 = _fmt(stats.get("p50"), 1), _fmt(stats.get("p95"), 1)
        lines.append(f"| {s.system} | {s.overall.scored} | {cells} | {p50} | {p95} |")
    groups: list[tuple[str, str]] = [("type", t) for t in dict.fromkeys(t for s in summaries for t in s.by_type)]
    groups += [("level", v) for v in dict.fromkeys(v for s in summaries for v in s.by_level)]
    for kind, title in (("type", "### Per question type"), ("level", "### Per level")):
        rows = [
            (f"{s.system} | {name}", m.retrieval, m.scored)
            for group_kind, name in groups
            if group_kind == kind
            for s in summaries
            if (m := (s.by_type if kind == "type" else s.by_level).get(name)) is not None and m.scored
        ]
        if rows:
            lines += ["", title, "", *_retrieval_table(rows, TITLE_METRICS)]
    return [*lines, ""]


def _retrieval_section(summaries: Sequence[SystemSummary]) -> list[str]:
    if is_title_run(summaries):
        return _title_retrieval_section(summaries)
    overall = [(f"{s.system} | all", s.overall.retrieval, s.overall.scored) for s in summaries]
    overall += [
        (f"{s.system} | full metadata only", s.full_metadata.retrieval, s.full_metadata.scored)
        for s in summaries
        if s.full_metadata and s.full_metadata.scored and s.full_metadata.scored != s.overall.scored
    ]
    lines = ["## Retrieval (non-null questions)", "", *_retrieval_table(overall), "", "### Per question type", ""]
    per_type = [
        (f"{s.system} | {SHORT_TYPE.get(t, t)}", m.retrieval, m.scored)
        for s in summaries
        for t, m in s.by_type.items()
        if m.scored
    ]
    return [*lines, *_retrieval_table(per_type), ""]


def _answers_section(summaries: Sequence[SystemSummary]) -> list[str]:
    if not any(s.overall.answers for s in summaries):
        return ["## Answers", "", "Not run (retrieval only, `--no-answers`).", ""]
    lines = [
        "## Answers",
        "",
        "- **strict**: graphwire's scorer (abstention detected first; exact yes/no; normalised entity match).",
        "- **official word overlap**: MultiHop-RAG `qa_evaluate.py` (any shared lower-cased word counts as correct).",
        '- **CS564 lenient**: the CS564 study\'s scorer, reproduced for comparison only; it has the "no" in "unknown" '
        'bug (a "no" gold answer is matched by the abstention "Unknown").',
        "",
        "- **answer in quote**: of the answers to answerable questions that quote sentences (`citations[].quote`) "
        "and whose gold answer a sentence can hold (not yes/no), the share whose quoted sentences hold it "
        "(normalised, whole words); n in brackets.",
        "",
        "| System | Group | Answerer | n | Strict acc | Official word-overlap acc | CS564 lenient acc | Miss rate |"
        " Hallucination rate | Answer in quote | LLM calls/q | Tokens/q |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for summary in summaries:
        groups = [("all", summary.overall), *((SHORT_TYPE.get(t, t), m) for t, m in summary.by_type.items())]
        for group, metrics in groups:
            a = metrics.answers
            if a is None:
                continue
            lines.append(
                f"| {summary.system} | {group} | {a.answerer} | {a.answered} | {_fmt(a.strict_accuracy)} | "
                f"{_fmt(a.official_word_overlap_accuracy)} | {_fmt(a.cs564_lenient_accuracy)} | {_fmt(a.miss_rate)} | "
                f"{_fmt(a.hallucination_rate)} | {_in_quote(a)} | {metrics.llm_calls_per_question:.2f} | "
                f"{metrics.tokens_per_question:.0f} |"
            )
    return [*lines, *_kinds_table(summaries), ""]


def _in_quote(answers: AnswerMetrics) -> str:
    return "-" if answers.answer_in_quote is None else f"{answers.answer_in_quote:.3f} ({answers.quotes_scored})"


def _kinds_table(summaries: Sequence[SystemSummary]) -> list[str]:
    """How each system's answers were made (`answer_kind`), all questions together."""
    kinds = sorted({k for s in summaries if s.overall.answers for k in s.overall.answers.kinds})
    if not kinds:
        return []
    lines = ["", "Answers by kind (`answer_kind`), all questions:", ""]
    lines += ["| System | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
    for summary in summaries:
        answers = summary.overall.answers
        if answers is not None:
            lines.append(f"| {summary.system} | " + " | ".join(str(answers.kinds.get(k, 0)) for k in kinds) + " |")
    return lines


def _latency_section(summaries: Sequence[SystemSummary]) -> list[str]:
    lines = ["## Latency (ms, wall clock in the harness; `stage:*` as reported by the retriever)", ""]
    lines += ["| System | Stage | n | p50 | p95 | mean |", "|---|---|---|---|---|---|"]
    for summary in summaries:
        for stage, stats in summary.latency_ms.items():
            lines.append(
                f"| {summary.system} | {stage} | {int(stats['n'])} | {stats['p50']:.1f} | {stats['p95']:.1f} | "
                f"{stats['mean']:.1f} |"
            )
    return [*lines, ""]


def _details_section(summaries: Sequence[SystemSummary]) -> list[str]:
    rows = [(s.system, key, value) for s in summaries for key, value in s.detail_means.items()]
    if not rows:
        return []
    lines = ["## What the retrievers reported (means of numeric details per question)", ""]
    lines += ["| System | Detail | Mean |", "|---|---|---|"]
    return [*lines, *(f"| {system} | {key} | {value:.2f} |" for system, key, value in rows), ""]


def _title_attribution(manifest: RunManifest) -> list[str]:
    lines = ["- Retrieval is scored by distinct document title (definitions under the retrieval table)."]
    if "hotpotqa" in manifest.questions_path.lower():
        lines.append(f"- {HOTPOTQA_ATTRIBUTION}")
    return lines


def _header(manifest: RunManifest, summaries: Sequence[SystemSummary], command: str | None) -> list[str]:
    check = manifest.corpus_check
    first = summaries[0].overall if summaries else None
    lines = ["# graphwire evaluation report", ""]
    if command:
        lines += ["Produced by:", "", "```", command, "```", ""]
    titles = is_title_run(summaries) or manifest.question_format == TITLES
    coverage = "title-scored format" if titles else f"{first.full_metadata if first else 0} with full evidence metadata"
    lines += [
        f"- Questions: `{shown_path(manifest.questions_path)}` (sha256 `{manifest.questions_sha256[:16]}…`), "
        f"{len(manifest.question_ids)} selected (types: {', '.join(manifest.types) or 'all'}, "
        f"sample: {manifest.sample_size or 'none'}, seed {manifest.seed}, limit: {manifest.limit or 'none'}); "
        f"{coverage}.",
        f"- Corpus: `{shown_path(manifest.corpus_path)}`. {check.get('verdict', 'Not checked against the stores.')}",
        f"- Systems: {', '.join(manifest.systems)}; top-k {manifest.top_k}; answers: "
        f"{manifest.answerer if manifest.answers else 'not run (retrieval only)'}; code at commit(s) "
        f"`{', '.join(manifest.git_commits) or 'unknown'}`.",
        *(_title_attribution(manifest) if titles else [f"- {ATTRIBUTION}"]),
        "",
    ]
    counts = {s.system: s.overall.questions for s in summaries}
    if len(set(counts.values())) > 1 or any(n < len(manifest.question_ids) for n in counts.values()):
        done = ", ".join(f"{name} {n}" for name, n in counts.items())
        lines += [
            f"**Partial run**: not every system finished all {len(manifest.question_ids)} questions ({done}); rows "
            "of systems with fewer questions are not side by side with the others.",
            "",
        ]
    return lines


def render_markdown(
    manifest: RunManifest, summaries: Sequence[SystemSummary], command: str | None = None, leads: Sequence[Lead] = ()
) -> str:
    sections = [
        _header(manifest, summaries, command),
        _retrieval_section(summaries),
        lead_section(leads),
        _answers_section(summaries),
        _latency_section(summaries),
        _details_section(summaries),
    ]
    errors = [(s.system, s.overall.errors) for s in summaries if s.overall.errors]
    if errors:
        sections.append(["## Errors", "", *(f"- {name}: {n} questions failed" for name, n in errors), ""])
    return "\n".join(line for section in sections for line in section)


def _chart_types(summaries: Sequence[SystemSummary], with_null: bool) -> list[str]:
    """MultiHop-RAG types in their usual order; a title-scored set's own types (bridge, comparison, ...)."""
    if is_title_run(summaries):
        return list(dict.fromkeys(t for s in summaries for t in s.by_type))
    return [t for t in SHORT_TYPE if (with_null or t != "null_query") and any(t in s.by_type for s in summaries)]


def _per_type_chart(summaries: Sequence[SystemSummary], metric: str, path: Path) -> None:
    types = _chart_types(summaries, with_null=False)
    groups = [*types, "all"]
    width = 0.8 / max(len(summaries), 1)
    fig, ax = plt.subplots(figsize=(3.2 + 1.6 * len(groups), 4))
    for i, summary in enumerate(summaries):
        values = [summary.by_type[t].retrieval.get(metric, 0.0) if t in summary.by_type else 0.0 for t in types]
        values.append(summary.overall.retrieval.get(metric, 0.0))
        ax.bar([g + i * width for g in range(len(groups))], values, width, label=summary.system)
    ax.set_xticks([g + width * (len(summaries) - 1) / 2 for g in range(len(groups))])
    ax.set_xticklabels([SHORT_TYPE.get(g, g) for g in groups])
    ax.set_ylim(0, 1)
    ax.set_ylabel(METRIC_LABELS[metric])
    ax.set_title(f"{METRIC_LABELS[metric]} per question type")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _answer_chart(summaries: Sequence[SystemSummary], path: Path) -> None:
    """Strict answer accuracy per question type (null = correct abstention)."""
    types = _chart_types(summaries, with_null=True)
    groups = [*types, "all"]
    width = 0.8 / max(len(summaries), 1)
    fig, ax = plt.subplots(figsize=(3.2 + 1.6 * len(groups), 4))
    for i, summary in enumerate(summaries):
        metrics = [summary.by_type.get(t) for t in types] + [summary.overall]
        values = [m.answers.strict_accuracy if m and m.answers else 0.0 for m in metrics]
        ax.bar([g + i * width for g in range(len(groups))], values, width, label=summary.system)
    ax.set_xticks([g + width * (len(summaries) - 1) / 2 for g in range(len(groups))])
    ax.set_xticklabels([SHORT_TYPE.get(g, g) for g in groups])
    ax.set_ylim(0, 1)
    answerer = next((s.overall.answers.answerer for s in summaries if s.overall.answers), "")
    ax.set_title(f"Strict answer accuracy per question type ({answerer})")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _latency_chart(records: dict[str, list[QuestionRecord]], path: Path) -> None:
    names = [name for name, recs in records.items() if any(r.error is None for r in recs)]
    data = [[r.latency_ms.get("total", 0.0) for r in records[name] if r.error is None] for name in names]
    fig, ax = plt.subplots(figsize=(1.5 + 1.3 * len(names), 4))
    ax.boxplot(data, showfliers=False)
    ax.set_xticks(range(1, len(names) + 1))
    ax.set_xticklabels(names, rotation=20)
    ax.set_yscale("log")
    ax.set_ylabel("ms per question (log)")
    ax.set_title("Latency per question (retrieve + answer)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_charts(out: Path, summaries: Sequence[SystemSummary], records: dict[str, list[QuestionRecord]]) -> list[Path]:
    charts = out / CHARTS_DIR
    charts.mkdir(parents=True, exist_ok=True)
    paths = []
    metrics = ("perfect_at_8", "recall_at_5", "perfect_at_2") if is_title_run(summaries) else CHART_METRICS
    for metric in metrics:
        path = charts / f"per_type_{metric}.png"
        _per_type_chart(summaries, metric, path)
        paths.append(path)
    if any(s.overall.answers for s in summaries):
        path = charts / "per_type_strict_accuracy.png"
        _answer_chart(summaries, path)
        paths.append(path)
    latency = charts / "latency.png"
    _latency_chart(records, latency)
    return [*paths, latency]


def common_questions(records: dict[str, list[QuestionRecord]]) -> set[str]:
    """Questions every system finished without error (the side-by-side set of a partial run)."""
    finished = [{r.question_id for r in recs if r.error is None} for recs in records.values()]
    return set.intersection(*finished) if finished else set()


def _common_section(summaries: Sequence[SystemSummary], n: int) -> list[str]:
    rows = [(f"{s.system} | all", s.overall.retrieval, s.overall.scored) for s in summaries]
    rows += [
        (f"{s.system} | {SHORT_TYPE.get(t, t)}", m.retrieval, m.scored)
        for s in summaries
        for t, m in s.by_type.items()
        if m.scored
    ]
    title = f"## Side by side on the {n} questions every system finished (partial run)"
    names = TITLE_METRICS if is_title_run(summaries) else RETRIEVAL_METRICS
    return [title, "", *_retrieval_table(rows, names), ""]


def build_report(out: Path, command: str | None = None, charts: bool = True) -> tuple[list[SystemSummary], Path]:
    """Read every record of the run in `out`, write summary.json, report.md and the charts; return the summaries."""
    manifest = load_manifest(out)
    if manifest is None:
        raise FileNotFoundError(f"{out} holds no run (no run.json); run `graphwire eval` first")
    command = command or manifest.command
    records = {system: load_records(out, system, manifest.question_ids) for system in manifest.systems}
    records = {system: recs for system, recs in records.items() if recs}
    summaries = [summarize_system(system, recs) for system, recs in records.items()]
    common = common_questions(records)
    partial = bool(records) and 0 < len(common) < max(len(recs) for recs in records.values())
    common_summaries = (
        [summarize_system(system, [r for r in recs if r.question_id in common]) for system, recs in records.items()]
        if partial
        else []
    )
    leads = paired_leads(records)
    payload = {
        "manifest": manifest.model_dump(exclude={"question_ids"}),
        "command": command,
        "systems": [s.model_dump() for s in summaries],
        "common_questions": len(common),
        "systems_on_common_questions": [s.model_dump() for s in common_summaries],
        "default_against_best_flat": [lead.model_dump() for lead in leads],
    }
    write_json_atomic(out / SUMMARY_FILE, json.dumps(payload, indent=1, default=str))
    report = out / REPORT_FILE
    markdown = render_markdown(manifest, summaries, command, leads)
    if common_summaries:
        markdown += "\n" + "\n".join(_common_section(common_summaries, len(common)))
    write_json_atomic(report, markdown)
    if charts and summaries:
        write_charts(out, summaries, records)
    return summaries, report
