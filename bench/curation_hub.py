"""Merge and undo on the 50,000-article synthetic graph (tests/support/synthetic.py, only the relationships the schema
allows: its generator draws types at random, and curation refuses an edit that keeps a forbidden one): the most
mentioned entity (a hub) absorbing another hub of its label, and a mid-tail entity, each previewed, applied and undone
through the curation door (ingest/curation/service.py), with the graph's fingerprint compared before and after.

    python -m bench.curation_hub --build --wipe   # writes the graph first (about 2 minutes); NEO4J_URI is emptied
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench._results import command_line, finish_report, machine
from bench.cypher_profile import synthetic_graph, synthetic_parser
from graphwire.core.settings import Settings
from graphwire.ingest.curation.models import EditRequest, Merge
from graphwire.ingest.curation.service import Curation
from graphwire.schema.model import load_schema
from tests.support.synthetic import LABELS, REPORTED_BY, entity_key_of

OUT = Path("bench/curation_hub")


def _timed(fn: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    value = fn()
    return value, round((time.perf_counter() - started) * 1000, 1)


def case(curation: Curation, survivor: str, merged: str, fingerprint: Any) -> dict[str, Any]:
    request = EditRequest(edit=Merge(survivor=survivor, merged=merged), by="bench", reason="timing")
    before = fingerprint()
    preview, preview_ms = _timed(lambda: curation.preview(request))
    applied, apply_ms = _timed(lambda: curation.apply(request))
    assert applied.record is not None
    _, undo_ms = _timed(lambda: curation.undo(applied.record.id, by="bench"))
    return {
        "survivor": survivor,
        "merged": merged,
        "counts": preview.change.counts,
        "preview_ms": preview_ms,
        "apply_ms": apply_ms,
        "undo_ms": undo_ms,
        "restored": fingerprint() == before,
    }


def render(report: dict[str, Any]) -> str:
    lines = [
        "# Merge and undo on the 50,000-article synthetic graph",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) at the end.",
        f"Graph: {report['graph']}",
        "",
        "| case | relationships moved or joined | preview ms | apply ms | undo ms | fingerprint restored |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, row in report["cases"].items():
        moved = sum(v for k, v in row["counts"].items() if k.startswith("relationships"))
        lines.append(
            f"| {name}: `{row['merged']}` into `{row['survivor']}` | {moved} | {row['preview_ms']} | "
            f"{row['apply_ms']} | {row['undo_ms']} | {row['restored']} |"
        )
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = synthetic_parser(__doc__)
    args = parser.parse_args()
    report: dict[str, Any] = {"command": command_line(), "machine": machine()}
    settings = Settings()
    schema = load_schema(settings.schema_path)

    def allowed(row: dict[str, Any]) -> bool:  # the generator draws types at random; curation checks the schema
        source, target = (str(row[end]).split(":", 1)[0] for end in ("source", "target"))
        return row["type"] == REPORTED_BY or schema.allows(source, row["type"], target)

    graph = synthetic_graph(parser, args, report, keep=allowed)
    curation = Curation(settings, lambda: graph, schema)
    report["graph"] = graph.read("ingest/count_nodes")[0]

    def fingerprint() -> Any:
        return graph.read("graph/fingerprint")[0]

    hub = entity_key_of(0)
    same_label = [i for i in range(1, 4000) if i % len(LABELS) == 0]  # entity i has label LABELS[i % len(LABELS)]
    tail = next(i for i in same_label if i >= 1500)
    report["cases"] = {
        "hub into hub": case(curation, hub, entity_key_of(same_label[0]), fingerprint),
        "mid-tail into hub": case(curation, hub, entity_key_of(tail), fingerprint),
    }
    graph.close()
    finish_report(OUT, report, render, args.notes)


if __name__ == "__main__":
    main()
