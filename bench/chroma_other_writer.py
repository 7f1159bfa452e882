"""Reads of a local Chroma folder while another process writes it: how many fail, by how many read attempts.

A ChunkStore and its FlatIndex read in a loop (full read with vectors, vector query, get by id, count) while a
subprocess deletes and upserts WRITE_BATCHES batches of chunks into the same folder, as `graphwire ingest` does beside a
serving API. Each trial runs with `core.chunk_store.READ_ATTEMPTS` set to one value: 1 = reopen on a changed revision
only, 2 = one retry, 6 = the default.

    python bench/chroma_other_writer.py --trials 3 --out bench/chroma_other_writer
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

from _results import command_line, machine, write_results

from graphwire.core.clients import chunk_store
from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.retrieval.flat.index import FlatIndex

WRITE_BATCHES = 30
WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from graphwire.core.clients.chunk_store import ChunkStore
    from graphwire.core.documents import Chunk
    from graphwire.core.settings import Settings

    store = ChunkStore.from_settings(Settings(chroma_path=Path(sys.argv[1]), chroma_collection="bench_other_writer"))
    for b in range(int(sys.argv[2])):
        store.delete_document(f"d{b - 1}")
        store.upsert([Chunk(id=f"d{b}:{i}", document_id=f"d{b}", index=i, title="t",
                            text=f"Harbour crane {b}-{i} was sold to a buyer in Rotterdam.") for i in range(8)])
    """
)


def trial(attempts: int) -> dict[str, Any]:
    chunk_store.READ_ATTEMPTS = attempts
    folder = Path(tempfile.mkdtemp(prefix="bench-chroma-"))
    try:
        store = ChunkStore.from_settings(Settings(chroma_path=folder, chroma_collection="bench_other_writer"))
        store.upsert([Chunk(id="e:0", document_id="e", index=0, title="t", text="Rates rose again today.")])
        index = FlatIndex(store, check_every_s=0.0)
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(folder), str(WRITE_BATCHES)])
        reads, errors = 0, Counter[str]()
        calls = {"full read": index.snapshot, "vector query": lambda: store.query("crane", 5),
                 "get": lambda: store.get(["e:0"]), "count": store.count}  # fmt: skip
        while writer.poll() is None:
            for name, call in calls.items():
                reads += 1
                try:
                    call()
                except Exception as exc:  # counted, by kind: what a request would have turned into a 500
                    errors[f"{name}: {type(exc).__name__}"] += 1
        return {"read_attempts": attempts, "reads": reads, "errors": dict(errors), "reopens": store.reopens}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def markdown(results: dict[str, Any]) -> str:
    lines = [
        "# Reads of a local Chroma folder while another process writes it",
        "",
        f"Command: `{results['command']}`",
        "",
        f"Machine: {results['machine']}; load average at the start {results['load_start']}, at the end "
        f"{results['load_end']} (other sessions share the cores).",
        "",
        f"Method: bench/chroma_other_writer.py docstring; {WRITE_BATCHES} write batches (delete a document, upsert 8 "
        "chunks) per trial. An error here is what a request would have answered with a 500.",
        "",
        "| read attempts | trial | reads | failed reads | errors | reopens |",
        "|---|---|---|---|---|---|",
    ]
    for row in results["trials"]:
        failed = sum(row["errors"].values())
        kinds = ", ".join(f"{k} x{v}" for k, v in row["errors"].items()) or "-"
        lines.append(
            f"| {row['read_attempts']} | {row['trial']} | {row['reads']} | {failed} | {kinds} | {row['reopens']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--attempts", type=int, nargs="+", default=[1, 2, 6])
    parser.add_argument("--out", type=Path, default=Path("bench/chroma_other_writer"))
    args = parser.parse_args()
    load_start = [round(x, 2) for x in os.getloadavg()]
    rows = [{"trial": t + 1, **trial(a)} for a in args.attempts for t in range(args.trials)]
    results = {"command": command_line(), "machine": machine(), "load_start": load_start,
               "load_end": [round(x, 2) for x in os.getloadavg()], "trials": rows}  # fmt: skip
    write_results(args.out, results, markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
