"""PROFILE of the statements issue 13 bounded, before and after, on a 50,000-article synthetic graph.

    .venv/bin/python -m bench.cypher_profile --build --wipe   # write the graph first (about 2 minutes)
    .venv/bin/python -m bench.cypher_profile --before <rev>   # profile the statements of <rev> and of the checkout

The graph (tests/support/synthetic.py) is written straight through the project's writer (GraphWriter, CREATE
statements), without extraction: 50,000 documents, 100,000 chunks, Zipf-distributed mentions (a few hub entities in
a large share of the chunks), hub REPORTED_BY provenance lists, two busy outlets. Each statement runs under PROFILE
twice, in a transaction that is rolled back (the second run is reported, its plan cached); db hits and rows come from
the profile.
"Before" is the statement's text at `--before`, "after" the checkout's; both get the same parameters (a statement
ignores the ones it does not use). The PROFILE prefix is added here, for measuring only: the product runs the
catalogue's statements as they are.
"""

from __future__ import annotations

import argparse
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, LiteralString, cast

from neo4j import Record

from bench._results import add_wipe_flag, command_line, finish_report, machine, require_wipe
from graphwire import cypher
from graphwire.core.clients.graph import WRITE, Access, Graph
from graphwire.core.names import entity_key
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema, empty_graph
from graphwire.ingest.writer import GraphWriter
from graphwire.schema.model import load_schema
from tests.support.schemas import news_caps
from tests.support.synthetic import SyntheticSpec, build, chunk_id, done_rows, entity_key_of, publication_name

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "cypher_profile"
ROLES = load_schema().roles  # the synthetic graph is a news graph
PUBLICATION, REPORTED_BY = ROLES.publisher_label, ROLES.reported_by_type
WINDOW = {"start": "2023-03-01", "end": "2023-03-31", "lo": "2023-03-01", "hi": "2023-03-31", "md_lo": "00-00",
          "md_hi": "99-99", "sources": []}  # fmt: skip
TEMPLATE = {"key_limit": 50, "bridge_scan": 200, "direct_per_entity": 40, "two_hop_scan": 400, "two_hop_fanout": 20,
            "two_hop_max_degree": 5000, "two_hop_per_entity": 12, "chunks_per_fact": 100, "limit": 120,
            "sources": [], "windows": [], "lists": None}  # fmt: skip


def cases() -> list[tuple[str, str, dict[str, Any]]]:
    """(label, statement, parameters): hub entities (the most mentioned), mid-tail ones, a busy outlet, a window."""
    hubs, mid = [entity_key_of(0), entity_key_of(1)], [entity_key_of(500), entity_key_of(1501)]
    outlet = publication_name(0)
    pub = entity_key(PUBLICATION, outlet, ROLES)
    hub_pair = {**TEMPLATE, "keys": hubs, "entity_keys": hubs, "publication_keys": []}
    hub_outlet = {**TEMPLATE, "keys": [hubs[0], pub], "entity_keys": hubs[:1], "publication_keys": [pub],
                  "sources": [outlet], "windows": [WINDOW]}  # fmt: skip
    mid_pair = {**TEMPLATE, "keys": mid, "entity_keys": mid, "publication_keys": []}
    stage3 = [("two hub entities", hub_pair), ("hub + busy outlet + one-month window", hub_outlet),
              ("two mid-tail entities", mid_pair)]  # fmt: skip
    return [
        *((f"{label}: facts", "retrieve/facts", params) for label, params in stage3),
        *((f"{label}: candidates", "retrieve/candidates", params) for label, params in stage3),
        ("chain hops around two hubs", "retrieve/relation_hops",
         {**TEMPLATE, "keys": hubs, "near": hubs, "types": ["SUPPLIES", "OWNS"], "per_entity": 8, "limit": 60}),
        ("GET /v1/graph/stats", "retrieve/graph_stats", {}),
        ("ingest report: relationships per type", "ingest/count_relationships_by_type", {}),
        ("ingest report: entities per label", "ingest/count_entities_by_label", {}),
        ("ingest --delete by title", "ingest/find_documents", {"ref": "Article 4242"}),
        ("update: one more chunk for two hubs' REPORTED_BY (rolled back)", "ingest/merge_relations",
         {"rows": [{"source": key, "type": REPORTED_BY, "target": pub, "chunk_ids": ["0" * 32], "evidence": None,
                    "extractor": "enrich", "cap": 100} for key in hubs]}),
        ("update: provenance of 4 replaced chunks (rolled back)", "ingest/remove_chunk_provenance",
         {"chunk_ids": [chunk_id(d, c) for d in (0, 1) for c in range(2)], "capped_types": [REPORTED_BY],
          "cap": 100}),
        ("update: a chunk kept in a hub's full REPORTED_BY list (refill, rolled back)",
         "ingest/remove_chunk_provenance", {"chunk_ids": [hub_kept_chunk()], "capped_types": [REPORTED_BY],
                                            "cap": 100}),
    ]  # fmt: skip


def hub_kept_chunk() -> str:
    """The smallest chunk id of the most mentioned entity's REPORTED_BY to its busiest outlet: a full capped list
    loses an entry, so the statement refills it from the entity's mentions."""
    hub = entity_key_of(0)
    lists = [r["chunk_ids"] for r in build(SyntheticSpec()).relations.new
             if r["source"] == hub and r["type"] == REPORTED_BY]  # fmt: skip
    return str(max(lists, key=len)[0])


def db_hits(plan: dict[str, Any]) -> int:
    return int(plan.get("dbHits", 0)) + sum(db_hits(child) for child in plan.get("children", []))


def _hottest(plan: dict[str, Any], out: list[tuple[int, str]]) -> list[tuple[int, str]]:
    out.append((int(plan.get("dbHits", 0)), str(plan["operatorType"]).split("@")[0]))
    for child in plan.get("children", []):
        _hottest(child, out)
    return out


def profiled(
    graph: Graph, text: str, params: dict[str, Any], access: Access = WRITE
) -> tuple[dict[str, Any], float, list[Record]]:
    """`PROFILE text` twice, each in a transaction that is rolled back (the write statements change nothing): the
    second run's plan, milliseconds and records."""
    query = cast(LiteralString, "PROFILE " + text)
    with graph.session(access) as session:
        for _ in range(2):
            started = time.perf_counter()
            with session.begin_transaction() as tx:
                result = tx.run(query, params)
                rows = list(result)
                summary = result.consume()
                tx.rollback()
            elapsed_ms = (time.perf_counter() - started) * 1000
    return cast(dict[str, Any], summary.profile), elapsed_ms, rows


def profile(graph: Graph, text: str, params: dict[str, Any]) -> dict[str, Any]:
    plan, elapsed_ms, rows = profiled(graph, text, params)
    top = sorted(_hottest(plan, []), reverse=True)[:3]
    return {"db_hits": db_hits(plan), "ms": round(elapsed_ms, 1), "rows": len(rows), "result": _size(rows),
            "hottest": [f"{op} {hits}" for hits, op in top]}  # fmt: skip


def _size(rows: list[Any]) -> str:
    keys = list(rows[0].keys()) if len(rows) == 1 else []  # a Record's `in` looks at its values
    if keys in (["facts"], ["candidates"]):
        return f"{len(rows[0][keys[0]])} {keys[0]}"
    return f"{len(rows)} rows"


def old_text(rev: str, name: str) -> str | None:
    """The statement's text at `rev`, or None where it did not exist yet."""
    shown = subprocess.run(["git", "show", f"{rev}:cypher/{name}.cypher"], cwd=ROOT, capture_output=True, text=True)
    return shown.stdout if shown.returncode == 0 else None


ABSENT = {"db_hits": "-", "ms": "-", "result": "-", "hottest": []}  # a statement new since `--before`


def _count(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def write_graph(
    graph: Graph, spec: SyntheticSpec, keep: Callable[[dict[str, Any]], bool] | None = None
) -> dict[str, Any]:
    """`keep`: which relationship rows are written (all when None)."""
    apply_schema(graph)
    started = time.perf_counter()
    rows = build(spec)
    if keep is not None:
        rows.relations.new = [row for row in rows.relations.new if keep(row)]
    writer = GraphWriter(
        graph, batch_size=10_000, threads=1, provenance=news_caps()
    )  # one write transaction at a time: a shared machine
    writer.write(rows)
    writer.mark_done(done_rows(rows, spec.chunks_per_document))
    return {"build_and_write_s": round(time.perf_counter() - started, 1)}


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# PROFILE before/after on a 50,000-article synthetic graph (issue 13 item 7)", "",
        f"Command: `{report['command']}` (the graph written first with `--build --wipe`)", "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) while it ran. "
        f"Before = the statements at `{report['before']}`, after = this commit's.", "",
        f"Graph: {report['graph']}", "",
        "| case | statement | db hits before | db hits after | ms before | ms after | result before | result after |",
        "|---|---|---:|---:|---:|---:|---|---|",
    ]  # fmt: skip
    for row in report["cases"]:
        b, a = row["before"], row["after"]
        hits = f"{_count(b['db_hits'])} | {_count(a['db_hits'])}"
        lines.append(f"| {row['case']} | `{row['statement']}` | {hits} | {b['ms']} | {a['ms']} | {b['result']} | "
                     f"{a['result']} |")  # fmt: skip
    lines += ["", "Hottest operators (db hits), after:", ""]
    lines += [f"- {row['case']}: {', '.join(row['after']['hottest'])}" for row in report["cases"]]
    return "\n".join(lines) + "\n" + report.get("notes", "")


def synthetic_parser(description: str | None) -> argparse.ArgumentParser:
    """The arguments of a benchmark on the synthetic graph: --build, --wipe, --notes."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="store_true", help="write the synthetic graph (the database must be empty)")
    parser.add_argument("--notes", type=Path, help="markdown appended to the report (what the numbers show)")
    add_wipe_flag(parser)
    return parser


def synthetic_graph(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    report: dict[str, Any],
    keep: Callable[[dict[str, Any]], bool] | None = None,
) -> Graph:
    """The graph at NEO4J_URI, written first with --build (and --wipe), with the checkout's indexes online."""
    graph = Graph.from_settings(Settings())
    graph.timeout_s = None
    if args.build:
        require_wipe(parser, args)
        empty_graph(graph)
        report["build"] = write_graph(graph, SyntheticSpec(), keep)
    apply_schema(graph)  # idempotent
    graph.write("admin/await_indexes", timeout_s=300)
    return graph


def main() -> None:
    parser = synthetic_parser(__doc__)
    parser.add_argument("--before", default="HEAD", help="git revision whose statements are 'before'")
    args = parser.parse_args()
    report: dict[str, Any] = {"command": command_line(), "machine": machine(), "before": args.before}
    graph = synthetic_graph(parser, args, report)
    counts = graph.read("ingest/count_nodes")[0]
    fingerprint = graph.read("graph/fingerprint")[0]
    report["graph"] = {**counts, "relationships": fingerprint["relationships"], "mentions": fingerprint["mentions"]}
    report["cases"] = []
    for label, name, params in cases():
        text = old_text(args.before, name)
        before = profile(graph, text, params) if text is not None else ABSENT
        after = profile(graph, cypher.PRODUCT.query(name), params)
        report["cases"].append({"case": label, "statement": name, "before": before, "after": after})
        print(label, before["db_hits"], "->", after["db_hits"], flush=True)
    finish_report(OUT, report, markdown, args.notes)
    graph.close()


if __name__ == "__main__":
    main()
