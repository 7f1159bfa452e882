"""Export and import times (issue 28 item 5): the demo graph and a synthetic one, each exported as JSON Lines and as
neo4j-admin CSV, imported into the emptied store and exported again (byte-identical is checked), then the CSV
imported by `neo4j-admin database import full` into a fresh database of the local launcher, whose export is compared
with the original's.

    graphwire neo4j start   # or any empty Neo4j 5.26 at NEO4J_URI
    .venv/bin/python -m bench.exchange --wipe --documents 10000

neo4j-admin runs from the launcher's jars (tools/neo4j/target/lib: org.neo4j.cli.AdminTool, the class behind the
`neo4j-admin` script of a Neo4j distribution), so the step needs `make launcher` and Java 17.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bench._results import add_wipe_flag, command_line, finish_report, machine, require_wipe
from graphwire import Graphwire
from graphwire.core.clients.graph import Graph
from graphwire.core.paths import maven_project
from graphwire.core.servers.neo4j_server import JVM_FLAGS, LocalNeo4j, free_port
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema, empty_graph
from graphwire.ingest.exchange.service import GraphExchange
from graphwire.ingest.writer import GraphWriter
from graphwire.schema.model import GraphSchema, load_schema
from tests.support.schemas import news_caps
from tests.support.synthetic import SyntheticSpec, build, done_rows

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo" / "articles.jsonl"


def timed(fn: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = fn()
    return result, round(time.perf_counter() - started, 2)


def neo4j_admin_import(csv: Path, home: Path) -> float:
    """`neo4j-admin database import full` of the CSV folder into a fresh home's `neo4j` database; seconds taken."""
    (home / "conf").mkdir(parents=True, exist_ok=True)
    (home / "conf" / "neo4j.conf").write_text(f"server.directories.data={home / 'data'}\n", encoding="utf-8")
    command = (csv / "import.sh").read_text(encoding="utf-8").splitlines()[-1].split(" ")
    lib = maven_project("neo4j") / "target" / "lib"
    java = ["java", "-Xmx1g", *JVM_FLAGS, "-cp", f"{lib}/*", "org.neo4j.cli.AdminTool"]
    env = {**os.environ, "NEO4J_HOME": str(home), "NEO4J_CONF": str(home / "conf")}
    started = time.perf_counter()
    subprocess.run([*java, *command[1:]], cwd=csv, env=env, check=True, capture_output=True)
    return round(time.perf_counter() - started, 2)


def compare_admin_import(csv: Path, original: list[str], settings: Settings) -> dict[str, Any]:
    """Import the CSV with neo4j-admin, serve it, export it, and compare with the original export line by line."""
    home = Path(tempfile.mkdtemp(prefix="graphwire-admin-import-"))
    server = LocalNeo4j(home, bolt_port=free_port(), http_port=None, heap="768m", pagecache="128m")
    try:
        seconds = neo4j_admin_import(csv, home)
        server.start(timeout_s=240)
        password = SecretStr(server.password_file.read_text().strip())
        served = settings.model_copy(update={"neo4j_uri": server.bolt_uri, "neo4j_password": password})
        graph = Graph.from_settings(served)
        try:
            lines = list(GraphExchange(served, lambda: graph, load_schema()).export_lines())
        finally:
            graph.close()
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)
    differing = sorted(set(lines[1:]) ^ set(original[1:]))
    return {"neo4j_admin_import_s": seconds, "header_equal": lines[0] == original[0], "lines": len(lines),
            "lines_differing": len(differing), "identical": lines == original}  # fmt: skip


def measure(name: str, settings: Settings, graph: Graph, scratch: Path, admin: bool) -> dict[str, Any]:
    exchange = GraphExchange(settings, lambda: graph, load_schema())
    path = scratch / f"{name}.jsonl"
    lines, export_s = timed(lambda: exchange.export_file(path))
    _, csv_s = timed(lambda: exchange.export_csv(scratch / f"{name}-csv"))
    original = path.read_text(encoding="utf-8").splitlines()
    empty_graph(graph)
    apply_schema(graph)
    report, import_s = timed(lambda: exchange.import_file(path))
    again = list(exchange.export_lines())
    result = {"graph": name, "lines": lines, "bytes": path.stat().st_size, "export_jsonl_s": export_s,
              "export_csv_s": csv_s, "import_s": import_s, "import_batches": report.batches,
              "reexport_identical": again == original}  # fmt: skip
    if admin:
        result |= compare_admin_import(scratch / f"{name}-csv", original, settings)
    return result


def allowed(schema: GraphSchema, row: dict[str, Any]) -> bool:
    """Whether a synthetic fact's (source label, type, target label) is a schema pattern (keys are `Label:name`)."""
    return schema.allows(row["source"].split(":")[0], row["type"], row["target"].split(":")[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_wipe_flag(parser)
    parser.add_argument("--documents", type=int, default=10_000, help="articles of the synthetic graph")
    parser.add_argument("--no-admin", action="store_true", help="skip the neo4j-admin import")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "exchange")
    parser.add_argument("--notes", type=Path)
    args = parser.parse_args()
    require_wipe(parser, args)
    settings = Settings().model_copy(update={"store_lock_dir": Path(tempfile.mkdtemp(prefix="graphwire-locks-"))})
    graph = Graph.from_settings(settings)
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        empty_graph(graph)
        apply_schema(graph)
        with Graphwire(settings) as gw:
            ingested = gw.ingest(DEMO, extractor="offline", vectors=False, force=True)
        assert ingested.documents_written and not ingested.failures, ingested
        results.append(measure("demo", settings, graph, Path(scratch), not args.no_admin))
        empty_graph(graph)
        spec = SyntheticSpec(documents=args.documents, entities=max(1000, args.documents * 2 // 5))
        rows = build(spec)
        # the generator draws facts between any labels; the schema's patterns only (an import checks them)
        schema = load_schema()
        rows.relations.new = [r for r in rows.relations.new if allowed(schema, r)]
        writer = GraphWriter(graph, batch_size=10_000, threads=1, provenance=news_caps())
        writer.write(rows)
        writer.mark_done(done_rows(rows, spec.chunks_per_document))
        results.append(measure(f"synthetic-{args.documents}", settings, graph, Path(scratch), not args.no_admin))
        empty_graph(graph)
    graph.close()
    report = {"command": command_line(), "machine": machine(), "results": results}
    finish_report(args.out, report, markdown, args.notes)


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Export and import of the graph (issue 28 item 5)", "",
        f"Command: `{report['command']}`", "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) after the run.", "",
        "| graph | lines | MB | export JSONL s | export CSV s | import s | re-export identical | neo4j-admin import s "
        "| neo4j-admin graph identical |",
        "|---|---:|---:|---:|---:|---:|---|---:|---|",
    ]  # fmt: skip
    for r in report["results"]:
        admin = f"{r['neo4j_admin_import_s']} | {r['identical']} ({r['lines_differing']} lines differ)" \
            if "identical" in r else "- | -"  # fmt: skip
        lines.append(f"| {r['graph']} | {r['lines']:,} | {r['bytes'] / 2**20:.1f} | {r['export_jsonl_s']} | "
                     f"{r['export_csv_s']} | {r['import_s']} | {r['reexport_identical']} | {admin} |")  # fmt: skip
    return "\n".join(lines) + "\n" + report.get("notes", "")


if __name__ == "__main__":
    main()
