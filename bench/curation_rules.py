"""What honouring curation rules costs a re-ingest: the demo corpus ingested again (forced, offline extractor) with
no rules, with 100 and with 1,000 (ingest/curation/rules.py), on a throwaway Neo4j in a temp folder on free ports.

    .venv/bin/python -m bench.curation_rules

The rules are a mix drawn from the demo graph, a quarter of each kind: deleted facts and added facts (existing
relationships with their first chunk, taken in turn), redirects of unseen names to existing entities and deleted
entities with unseen names. The rounds alternate, so a drift of the machine's load falls on all. Writes
bench/curation_rules.json and .md.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bench._results import command_line, finish_report, machine
from graphwire.core.clients.graph import Graph
from graphwire.core.paths import DEMO_DIR
from graphwire.core.servers.neo4j_server import LocalNeo4j, free_port
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import apply_schema
from graphwire.ingest.curation.rules import CurationRule, CurationRules
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.schema.model import load_schema

OUT = Path(__file__).resolve().parent / "curation_rules"
ROUNDS = 5
COUNTS = (0, 100, 1000)


def synthetic_rules(graph: Graph, count: int) -> list[dict[str, Any]]:
    facts = [f for f in graph.read("ingest/export_facts") if f["chunk_ids"] and f["type"] != "REPORTED_BY"]
    keys = [f["source"] for f in facts]
    each = count // 4
    rules: list[dict[str, Any]] = []
    for i in range(2 * each):
        fact = facts[i % len(facts)]
        evidence = (fact["evidence"] or [""])[0]
        rules.append({"kind": "deny-fact" if i < each else "keep-fact", "source": fact["source"],
                      "type": fact["type"], "target": fact["target"], "chunk_id": fact["chunk_ids"][0],
                      "evidence": evidence})  # fmt: skip
    for i in range(each):
        label = keys[i % len(keys)].split(":", 1)[0]
        rules.append({"kind": "redirect", "keys": [f"{label}:bench alias {i}"], "target": keys[i % len(keys)]})
        rules.append({"kind": "deny-entity", "keys": [f"{label}:bench deleted {i}"]})
    return [CurationRule.model_validate({"id": f"bench-{i}", "edit_id": "bench", "seq": i, **r}).model_dump()
            for i, r in enumerate(rules)]  # fmt: skip


def one_round(graph: Graph, extractor: OfflineExtractor, rules: list[dict[str, Any]]) -> dict[str, Any]:
    graph.write("bench/delete_curation_rules")
    if rules:
        graph.write("bench/create_curation_rules", rules=rules)
    t0 = time.perf_counter()
    loaded = CurationRules.load(graph, load_schema())
    load_s = time.perf_counter() - t0
    articles = load_articles(DEMO_DIR / "articles.jsonl").articles
    started = time.perf_counter()
    report = ingest_articles(articles, graph, extractor, schema=load_schema(),
                             options=IngestOptions(progress=False, force=True))  # fmt: skip
    return {"rules": len(loaded), "elapsed_s": round(time.perf_counter() - started, 3),
            "rules_load_ms": round(load_s * 1000, 1), "chunks": report.chunks_written,
            "write_s": round(report.write_s, 3), "link_s": round(report.link_s, 3)}  # fmt: skip


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# What honouring curation rules costs a re-ingest", "",
        f"Command: `{report['command']}`", "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) while it ran. "
        "Neo4j 5.26 Community (default heap), a throwaway store.", "",
        f"Each round ingests the demo corpus again (`data/demo/articles.jsonl`, {report['rounds'][0]['chunks']} "
        f"chunks, offline extractor, forced), with {', '.join(map(str, COUNTS))} rules; rounds alternate.", "",
        "| rules | median ingest s | runs s | reading the rules ms (median) |", "|---:|---:|---|---:|",
    ]  # fmt: skip
    for n, s in report["summary"].items():
        lines.append(f"| {n} | {s['median_s']} | {', '.join(map(str, s['runs_s']))} | {s['load_ms']} |")
    lines += [
        "", "Honouring rules costs a run their read at its start (the last column: one query and their validation) and "
        "a few dictionary look-ups per extracted name and relationship; the added facts are checked in one statement "
        "after the writes. The machine was shared (load average above): differences between the medians that lie "
        "within the spread of the runs are noise.",
    ]  # fmt: skip
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    report: dict[str, Any] = {"command": command_line(), "machine": machine(), "rounds": []}
    articles = load_articles(DEMO_DIR / "articles.jsonl").articles
    gazetteer = Gazetteer.from_sources((a.source for a in articles), schema=load_schema())
    extractor = OfflineExtractor(load_schema(), gazetteer.with_file(DEMO_DIR / "gazetteer.yaml"))
    with tempfile.TemporaryDirectory(prefix="gw-rules-") as tmp:
        server = LocalNeo4j(Path(tmp) / "neo4j", bolt_port=free_port(), http_port=free_port())
        server.build()
        try:
            server.start(timeout_s=600)
            settings = Settings(_env_file=None, neo4j_uri=server.bolt_uri,
                                neo4j_password=SecretStr(server.ensure_password()))  # type: ignore[call-arg]  # fmt: skip
            graph = Graph.from_settings(settings)
            apply_schema(graph)
            one_round(graph, extractor, [])  # the first ingest, and the warm-up: spaCy, plans, page cache
            rules = [synthetic_rules(graph, n) for n in COUNTS]
            for _ in range(ROUNDS):
                for chosen in rules:
                    report["rounds"].append(one_round(graph, extractor, chosen))
                    print(report["rounds"][-1], flush=True)
            graph.close()
        finally:
            server.stop()
    report["summary"] = {
        str(n): {"median_s": statistics.median(r["elapsed_s"] for r in rs), "runs_s": [r["elapsed_s"] for r in rs],
                 "load_ms": statistics.median(r["rules_load_ms"] for r in rs)}
        for n in sorted({r["rules"] for r in report["rounds"]})
        if (rs := [r for r in report["rounds"] if r["rules"] == n])
    }  # fmt: skip
    finish_report(OUT, report, markdown, None)


if __name__ == "__main__":
    main()
