"""One writer for benchmark results: `<out>.json` (the numbers, with the command that produced them) and `<out>.md`."""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def command_line() -> str:
    """The command that ran this script, for the report: a script of this repository as `python -m bench.x`, so
    the report names no folder of the machine it ran on."""
    script, rest = Path(sys.argv[0]), sys.argv[1:]
    if script.is_absolute() and script.is_relative_to(ROOT):
        module = ".".join(script.relative_to(ROOT).with_suffix("").parts)
        return " ".join(["python -m", module, *(shlex.quote(a) for a in rest)])
    return "python " + " ".join(shlex.quote(a) for a in sys.argv)


def machine() -> str:
    """Cores, memory, architecture and Python version of this machine."""
    memory = ""
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages * page_size / 2**30:.0f} GiB memory"
    except (ValueError, OSError, AttributeError):
        pass
    return f"{os.cpu_count()} cores{memory}, {platform.machine()}, Python {platform.python_version()}"


def write_results(out: Path, results: Any, markdown: str | None = None) -> None:
    """Write `results` as `out` with a .json suffix and, when given, `markdown` beside it with a .md suffix."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if markdown is not None:
        out.with_suffix(".md").write_text(markdown if markdown.endswith("\n") else markdown + "\n", encoding="utf-8")


def show_and_write(out: Path | None, results: Any, markdown: str) -> None:
    """Print `markdown`, then write both as `write_results` does when `out` is given."""
    print(markdown)
    if out is not None:
        write_results(out, results, markdown)


def finish_report(out: Path, report: dict[str, Any], render: Any, notes: Path | None) -> None:
    """Record the load average and the notes file (markdown appended to the report), then write `<out>.json` and
    `render(report)` as `<out>.md`."""
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    if notes is not None:
        report["notes"] = "\n" + notes.read_text(encoding="utf-8")
    write_results(out, report, render(report))


def add_wipe_flag(parser: argparse.ArgumentParser) -> None:
    """`--wipe`, required by benchmarks that empty the Neo4j at NEO4J_URI."""
    parser.add_argument("--wipe", action="store_true", help="required: the Neo4j at NEO4J_URI is emptied")


def require_wipe(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.wipe:
        parser.error("this benchmark empties the Neo4j at NEO4J_URI: pass --wipe")


def latency_stats(values: list[float]) -> dict[str, float]:
    """p50, p95 and mean of a list of milliseconds, rounded to 0.1 ms."""
    p50, p95 = (float(np.percentile(values, q)) for q in (50, 95))
    return {"p50": round(p50, 1), "p95": round(p95, 1), "mean": round(float(np.mean(values)), 1)}
