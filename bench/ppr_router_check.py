"""Which router rule fires on each question of an evaluation run, and how graph and ppr did on those questions.

Needs a run folder from `graphwire eval --no-answers --systems ppr,graph --out RUN` and the same Neo4j (env vars as
for that run). Usage:  .venv/bin/python -m bench.ppr_router_check RUN   (prints a Markdown table)
"""

from __future__ import annotations

import collections
import glob
import json
import sys
from pathlib import Path
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.retrieval.ppr.mode import GraphStageMatcher
from graphwire.retrieval.router import RoutingPolicy, default_rules, extract_features
from graphwire.schema.model import load_schema

ALL_MODES = ["graph", "ppr", "vector", "hybrid"]


def load(run: Path, system: str) -> dict[int, dict[str, Any]]:
    records = (json.loads(Path(f).read_text()) for f in glob.glob(str(run / "records" / system / "*.json")))
    return {r["index"]: r for r in records}


def main(run: Path) -> None:
    settings = Settings()
    graph = Graph.from_settings(settings)
    stages = GraphStageMatcher.standalone(graph, load_schema(settings.schema_path))
    policy = RoutingPolicy(default_rules("vector"), lambda: ALL_MODES)
    graph_runs, ppr_runs = load(run, "graph"), load(run, "ppr")
    rows: dict[tuple[str, str], collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for idx, record in sorted(graph_runs.items()):
        analysis, matches = stages.analyse(record["query"])
        decision = policy.decide(extract_features(record["query"], analysis, matches))
        row = rows[(decision.rule, decision.mode)]
        row["questions"] += 1
        row["null"] += record["question_type"] == "null_query"
        if record["retrieval"] and ppr_runs[idx]["retrieval"]:
            row["scored"] += 1
            row["graph"] += record["retrieval"]["perfect_at_10"]
            row["ppr"] += ppr_runs[idx]["retrieval"]["perfect_at_10"]
    graph.close()
    print("| rule | routes to | questions | null questions | scored | graph Perfect@10 | ppr Perfect@10 |")
    print("|---|---|---|---|---|---|---|")
    for (rule, mode), c in sorted(rows.items(), key=lambda kv: -kv[1]["questions"]):
        n = max(c["scored"], 1)
        print(
            f"| {rule} | {mode} | {c['questions']} | {c['null']} | {c['scored']} "
            f"| {c['graph'] / n:.3f} | {c['ppr'] / n:.3f} |"
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
