"""How long the `graphwire` command takes to start: `--help`, `--version`, a sub-command's help, `import graphwire`.

Each command runs REPEATS times in a fresh process (the console script of this venv); the median and the slowest are
reported with the 1-minute load average. Usage: python bench/cli_startup.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import command_line, machine, write_results  # noqa: E402

REPEATS = 7
GRAPHWIRE = Path(sys.executable).with_name("graphwire")
CASES = {
    "graphwire --help": [str(GRAPHWIRE), "--help"],
    "graphwire --version": [str(GRAPHWIRE), "--version"],
    "graphwire ingest --help": [str(GRAPHWIRE), "ingest", "--help"],
    "python -c 'import graphwire'": [sys.executable, "-c", "import graphwire"],
}


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    rows = {}
    for name, argv in CASES.items():
        timed(argv)  # warm the file cache
        runs = [timed(argv) for _ in range(REPEATS)]
        rows[name] = {"median_s": round(statistics.median(runs), 3), "max_s": round(max(runs), 3)}
    load = os.getloadavg()[0]
    results = {"command": command_line(), "machine": machine(), "load_1min": round(load, 1), "cases": rows}
    lines = [
        "# CLI start-up time",
        "",
        f"`{command_line()}` on {machine()}, 1-minute load average {load:.1f}; {REPEATS} fresh processes per row.",
        "",
        "| command | median s | slowest s |",
        "|---|---|---|",
        *(f"| `{name}` | {row['median_s']:.3f} | {row['max_s']:.3f} |" for name, row in rows.items()),
        "",
        "Sub-commands are imported only when they run (cli/main.py), so `--help` and `--version` load typer and not",
        "Neo4j, Chroma, spaCy or langchain; a sub-command's own help imports its module. Before that change",
        "(commit 19ada80) one `graphwire --help` took 9.5 s on this machine (`time graphwire --help`, load about 8).",
    ]
    write_results(Path(__file__).with_name("cli_startup"), results, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
