"""What each ingredient of the zero-LLM graph adds, on a title-scored corpus (the encyclopedia format of
../shared/data/hotpotqa/): each row changes one thing from the shipped defaults and reports Perfect@k and Recall@k by
distinct document title.

Wipes and fills the Neo4j at NEO4J_URI (three offline ingests: defaults, no title entities, no dictionary linking),
so point it at a throwaway server:

    NEO4J_URI=bolt://127.0.0.1:7700 NEO4J_PASSWORD=... python -m bench.graph_ablation --wipe \\
        --corpus ../shared/data/hotpotqa/corpus.json --questions ../shared/data/hotpotqa/questions.json \\
        --out bench/graph_ablation
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._results import add_wipe_flag, command_line, machine, require_wipe, write_results
from graphwire.core.clients.embeddings import embedder_from_settings
from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings
from graphwire.core.stores.bootstrap import empty_graph
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.retrieval.base import Retriever
from graphwire.retrieval.ppr.config import ChunkScoring, GraphOptions, PPRConfig, ScoringOptions
from graphwire.retrieval.ppr.export import SnapshotCache
from graphwire.retrieval.ppr.mode import GraphStageMatcher, LazyRelationScorer
from graphwire.retrieval.ppr.retriever import PPRRetriever
from graphwire.retrieval.registry import RetrievalContext
from graphwire.schema.model import load_schema

KS = (2, 5, 8, 10)


def score(retriever: Retriever, questions: list[dict[str, Any]]) -> dict[str, float]:
    hits: dict[str, float] = {f"perfect@{k}": 0.0 for k in KS} | {"recall@2": 0.0, "recall@5": 0.0}
    latencies = []
    for q in questions:
        started = time.perf_counter()
        result = retriever.retrieve(q["query"], top_k=20)
        latencies.append((time.perf_counter() - started) * 1000)
        titles = list(dict.fromkeys(c.title for c in result.chunks))
        gold = set(q["gold_titles"])
        for k in KS:
            hits[f"perfect@{k}"] += float(gold <= set(titles[:k]))
        for k in (2, 5):
            hits[f"recall@{k}"] += len(gold & set(titles[:k])) / len(gold)
    out = {name: round(v / len(questions), 3) for name, v in hits.items()}
    out["p50_ms"] = round(statistics.median(latencies), 1)
    out["p95_ms"] = round(sorted(latencies)[int(0.95 * (len(latencies) - 1))], 1)
    return out


def ingest(graph: Graph, corpus: Path, *, titles: bool = True, link: bool = True) -> dict[str, Any]:
    empty_graph(graph)
    extractor = OfflineExtractor(load_schema(), title_entities=titles)
    report = ingest_articles(
        load_articles(corpus).articles,
        graph,
        extractor,
        options=IngestOptions(progress=False, link_names=link),
        schema=load_schema(),
    )
    return {"chunks": report.chunks_written, "entities": report.graph_counts.get("entities"),
            "mentions_linked": report.mentions_linked, "seconds": round(report.elapsed_s, 1)}  # fmt: skip


def ppr(graph: Graph, settings: Settings, **changes: Any) -> PPRRetriever:
    """PPR with the shipped defaults, less what `changes` names (graph/scoring fields, `seeds`, `cues`)."""
    schema = load_schema(settings.schema_path)
    graph_opts = GraphOptions.of(schema, **{k: v for k, v in changes.items() if k in GraphOptions.model_fields})
    scoring = ScoringOptions(**{k: v for k, v in changes.items() if k in ScoringOptions.model_fields})
    matcher = GraphStageMatcher.standalone(graph, schema) if changes.get("seeds") == "stages" else None
    relation_scorer = None
    if scoring.relation_cue_weight > 0:
        relation_scorer = LazyRelationScorer(embedder_from_settings(settings), schema)
    return PPRRetriever(graph, SnapshotCache(graph, 0.0), PPRConfig(graph=graph_opts, scoring=scoring),
                        matcher=matcher, relation_scorer=relation_scorer)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("bench/graph_ablation"))
    add_wipe_flag(parser)
    args = parser.parse_args()
    require_wipe(parser, args)
    logging.disable(logging.WARNING)
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    settings = Settings()
    graph = Graph.from_settings(settings)
    questions = json.loads(args.questions.read_text(encoding="utf-8"))
    rows: list[dict[str, Any]] = []

    def row(group: str, variant: str, make: Callable[[], Retriever]) -> None:
        rows.append({"group": group, "variant": variant, **score(make(), questions)})
        print(rows[-1], flush=True)

    builds = {}
    for name, titles, link in (("no title entities", False, True), ("no dictionary linking", True, False)):
        builds[name] = ingest(graph, args.corpus, titles=titles, link=link)
        row("entity layer", name, lambda: ppr(graph, settings))
    builds["defaults"] = ingest(graph, args.corpus)
    ctx = RetrievalContext(settings=settings, graph=lambda: graph)
    row("shipped", "ppr (defaults)", lambda: ppr(graph, settings))
    row("shipped", "graph (five stages, filled to top_k by ppr)", lambda: ctx.retriever("graph"))
    row("structure", "no sentence co-occurrence edges", lambda: ppr(graph, settings, cooccurrence_weight=0.0))
    row("structure", "co-occurrence weight 1.0", lambda: ppr(graph, settings, cooccurrence_weight=1.0))
    row("structure", "no synonym edges", lambda: ppr(graph, settings, synonym_threshold=None))
    row("structure", "no title edge weight", lambda: ppr(graph, settings, title_weight=0.0))
    row("structure", "no node specificity", lambda: ppr(graph, settings, node_specificity=False))
    row(
        "scoring",
        "mixed chunk scoring (passage + relation term)",
        lambda: ppr(graph, settings, chunk_scoring=ChunkScoring.MIXED),
    )
    row("seeds", "graph stages 1-2 beside the dictionary", lambda: ppr(graph, settings, seeds="stages"))
    row("seeds", "relation cues 0.9", lambda: ppr(graph, settings, relation_cue_weight=0.9))
    row("before", "earlier defaults (mixed scoring, stages, cues 0.9, no co-occurrence, no synonyms)",
        lambda: ppr(graph, settings, chunk_scoring=ChunkScoring.MIXED, seeds="stages", relation_cue_weight=0.9,
                    cooccurrence_weight=0.0, synonym_threshold=None))  # fmt: skip
    results = {"command": command_line(), "machine": machine(), "load": os.getloadavg()[0], "builds": builds,
               "questions": len(questions), "rows": rows}  # fmt: skip
    write_results(args.out, results, markdown(results))


def markdown(results: dict[str, Any]) -> str:
    lines = [
        "# Graph ablation on a title-scored corpus",
        "",
        f"Command: `{results['command']}`",
        "",
        f"Machine: {results['machine']}; 1-minute load average at the end {results['load']:.1f}. "
        f"{results['questions']} questions; scored by distinct document title among the first k retrieved.",
        "",
        "Builds (offline extractor, no vectors): "
        + "; ".join(
            f"{name}: {b['chunks']} chunks, {b['entities']} entities, {b['mentions_linked']} linked mentions, "
            f"{b['seconds']} s"
            for name, b in results["builds"].items()
        ),  # fmt: skip
        "",
        "| group | variant | Perfect@2 | Perfect@5 | Perfect@8 | Perfect@10 | Recall@2 | Recall@5 | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results["rows"]:
        lines.append(
            f"| {r['group']} | {r['variant']} | {r['perfect@2']:.3f} | {r['perfect@5']:.3f} | {r['perfect@8']:.3f} | "
            f"{r['perfect@10']:.3f} | {r['recall@2']:.3f} | {r['recall@5']:.3f} | {r['p50_ms']} | {r['p95_ms']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
