"""The PPR snapshot's one Cypher read against a real Neo4j: load a synthetic graph, then time export_snapshot.

Run from the repo root:  .venv/bin/python -m bench.ppr_export [--relations 100000]
Starts a throwaway Neo4j (the Maven-built launcher, as the tests do) unless NEO4J_URI is set; writes
bench/ppr_export.md and .json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import SecretStr

from bench._results import write_results
from bench.ppr_scale import synthetic_rows
from graphwire.core.clients.graph import Graph
from graphwire.core.servers.neo4j_server import LocalNeo4j, free_port
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema, empty_graph
from graphwire.retrieval.ppr.export import export_snapshot, graph_fingerprint
from tests.support.statements import TEST_CATALOGUE  # the fixture statements (tests/support/cypher/fixture/)

OUT = Path(__file__).with_name("ppr_export")
BATCH = 5000


@contextmanager
def neo4j_graph() -> Iterator[Graph]:
    if os.environ.get("NEO4J_URI"):
        graph = Graph.from_settings(Settings(), TEST_CATALOGUE)
        yield graph
        graph.close()
        return
    home = Path(tempfile.mkdtemp(prefix="graphwire-bench-"))
    server = LocalNeo4j(home, bolt_port=free_port(), http_port=free_port(), heap="1g", pagecache="512m")
    try:
        server.start(timeout_s=300)
        password = SecretStr(server.password_file.read_text().strip())
        settings = Settings(neo4j_uri=server.bolt_uri, neo4j_password=password)
        graph = Graph.from_settings(settings.model_copy(update={"cypher_timeout_s": 600.0}), TEST_CATALOGUE)
        yield graph
        graph.close()
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


def load(graph: Graph, n_relations: int) -> dict[str, float]:
    entities, mentions, relations = synthetic_rows(n_relations)
    chunks = sorted({m.chunk_id for m in mentions})
    started = time.perf_counter()
    graph.write_batches(
        "fixture/passages",
        [{"document_id": c, "chunk_id": c, "title": c, "text": c, "source": None} for c in chunks],
        BATCH,
    )
    graph.write_batches(
        "fixture/entities",
        [
            {"key": e.key, "name": e.name, "label": "Organization", "aliases": [e.name], "norm": e.name}
            for e in entities
        ],
        BATCH,
    )
    graph.write_batches(
        "fixture/mentions",
        [{"chunk_id": m.chunk_id, "entity_key": m.entity_key, "count": 1, "title": False} for m in mentions],
        BATCH,
    )
    # MERGE on (source, type, target): drawn duplicates collapse, as ingestion would merge them
    graph.write_batches(
        "fixture/relations",
        [
            {"source_key": r.source_key, "type": r.type, "target_key": r.target_key, "chunk_ids": list(r.chunk_ids)}
            | {"evidence": []}
            for r in relations
        ],
        BATCH,
    )
    return {"load_s": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--relations", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with neo4j_graph() as graph:
        apply_schema(graph)
        empty_graph(graph)
        loaded = load(graph, args.relations)
        started = time.perf_counter()
        for _ in range(20):
            graph_fingerprint(graph)
        fingerprint_ms = (time.perf_counter() - started) / 20 * 1000
        times = []
        snap = None
        for _ in range(args.runs):
            started = time.perf_counter()
            snap = export_snapshot(graph)
            times.append(time.perf_counter() - started)
        empty_graph(graph)
    assert snap is not None
    rows = snap.n_entities + int(snap.mentions.nnz) + snap.n_relations
    result = {
        "command": f".venv/bin/python -m bench.ppr_export --relations {args.relations} --runs {args.runs}",
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
        "entities": snap.n_entities,
        "chunks": snap.n_chunks,
        "relationships": snap.n_relations,
        "mentions": int(snap.mentions.nnz),
        **loaded,
        "fingerprint_ms": round(fingerprint_ms, 2),
        "export_s_best": round(min(times), 2),
        "export_s_median": round(sorted(times)[len(times) // 2], 2),
        "rows_per_s": int(rows / min(times)),
    }
    print(json.dumps(result, indent=2))
    table = "".join(f"| {k} | {v} |\n" for k, v in result.items() if k != "command")
    write_results(
        OUT,
        result,
        "# PPR snapshot export from Neo4j\n\n"
        f"Command: `{result['command']}`\n\n"
        "A synthetic graph (same generator as bench/ppr_scale.py) written with the fixture statements, then "
        "`export_snapshot` (cypher/graph/snapshot.cypher, one read transaction, streamed) timed end to end, including "
        "building the CSR snapshot. `fingerprint_ms` is the cheap check run before reusing a cached snapshot.\n\n"
        "| measure | value |\n|---|---|\n" + table,
    )


if __name__ == "__main__":
    main()
