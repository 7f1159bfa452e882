"""A small ingest into a large graph: stored entities read and time, reading every entity first (what each run did
before lazy loads) against reading only what the run names (ingest/entity_lookup.py).

    .venv/bin/python -m bench.lazy_entities --build --wipe   # write the 50,000-article synthetic graph first
    .venv/bin/python -m bench.lazy_entities                  # on the graph already there

Each round ingests a few demo articles (offline extractor) into the synthetic graph of bench/cypher_profile.py,
then deletes them again, so every round starts from the same graph. "all entities" preloads the resolver with every
stored entity and makes the dictionary linker read them all; "lazy" is the default run.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench._results import command_line, finish_report, machine
from bench.cypher_profile import synthetic_graph, synthetic_parser
from graphwire.core.clients.graph import Graph
from graphwire.core.paths import DEMO_DIR
from graphwire.ingest.entity_lookup import StoredEntities, migrate
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, delete_documents, ingest_articles
from graphwire.ingest.resolve import EntityResolver
from graphwire.schema.model import load_schema
from tests.support.schemas import news_caps

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "lazy_entities"
ARTICLES = 3
ROUNDS = 3


@contextmanager
def _every_entity() -> Iterator[None]:
    """The linker believes the graph is empty, so it reads every entity (the resolver is preloaded by the caller)."""
    count = StoredEntities.count
    StoredEntities.count = lambda self: 0  # type: ignore[method-assign]
    try:
        yield
    finally:
        StoredEntities.count = count  # type: ignore[method-assign]


def one_round(graph: Graph, mode: str, extractor: OfflineExtractor, gazetteer: Gazetteer) -> dict[str, Any]:
    articles = load_articles(DEMO_DIR / "articles.jsonl").articles[:ARTICLES]
    resolver = EntityResolver(publication_aliases=gazetteer.publication_aliases(), schema=load_schema())
    options = IngestOptions(progress=False)
    started = time.perf_counter()
    if mode == "all entities":
        every = graph.read("ingest/existing_entities")
        resolver.load(every)
        with _every_entity():
            report = ingest_articles(
                articles, graph, extractor, options=options, resolver=resolver, schema=load_schema()
            )
        read = len(every) + report.entities_read
    else:
        report = ingest_articles(articles, graph, extractor, options=options, resolver=resolver, schema=load_schema())
        read = report.entities_read
    elapsed = time.perf_counter() - started
    delete_documents(graph, [a.doc_id for a in articles], provenance=news_caps())
    return {"mode": mode, "elapsed_s": round(elapsed, 2), "entities_read": read, "chunks": report.chunks_written,
            "link_s": round(report.link_s, 2)}  # fmt: skip


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# A small ingest into a large graph: lazy entity loads", "",
        f"Command: `{report['command']}`", "",
        f"Machine: {report['machine']}; load average {report['load_average']} (1, 5, 15 min) while it ran. "
        "Neo4j 5.26 Community from `graphwire neo4j start`.", "",
        f"Graph: {report['graph']}. Each round ingests {ARTICLES} demo articles ({report['rounds'][0]['chunks']} "
        "chunks, offline extractor) and deletes them again.", "",
        "| round | mode | stored entities read | ingest s | of which linking s |", "|---:|---|---:|---:|---:|",
    ]  # fmt: skip
    for i, r in enumerate(report["rounds"]):
        lines.append(f"| {i // 2 + 1} | {r['mode']} | {r['entities_read']:,} | {r['elapsed_s']} | {r['link_s']} |")
    return "\n".join(lines) + "\n" + report.get("notes", "")


def main() -> None:
    parser = synthetic_parser(__doc__)
    args = parser.parse_args()
    report: dict[str, Any] = {"command": command_line(), "machine": machine()}
    graph = synthetic_graph(parser, args, report)
    report["migrated"] = migrate(graph, load_schema().roles)
    report["graph"] = graph.read("ingest/count_nodes")[0]
    sources = (a.source for a in load_articles(DEMO_DIR / "articles.jsonl").articles)
    gazetteer = Gazetteer.from_sources(sources, schema=load_schema()).with_file(DEMO_DIR / "gazetteer.yaml")
    extractor = OfflineExtractor(load_schema(), gazetteer)
    one_round(graph, "lazy", extractor, gazetteer)  # warm-up: spaCy, plans, page cache
    report["rounds"] = []
    for _ in range(ROUNDS):
        for mode in ("all entities", "lazy"):
            report["rounds"].append(one_round(graph, mode, extractor, gazetteer))
            print(report["rounds"][-1], flush=True)
    finish_report(OUT, report, markdown, args.notes)
    graph.close()


if __name__ == "__main__":
    main()
