"""Crash tests of updates and deletes: a corpus, the step a killed subprocess runs, and a whole-store export.

`python -m support.crash STEP KILL` (cwd tests/, the store from NEO4J_URI / NEO4J_PASSWORD / CHROMA_PATH) runs one
step (`update`: ingest the changed corpus; `delete`: delete one document; `name`: one document gains new names) and
SIGKILLs itself at KILL:
`after_batch:N` (once N batches of the run are committed) or `STATEMENT:N` (just before the N-th run of that named
Cypher statement). The test then runs the same step again and compares the store with the one an uninterrupted step
builds (`export_store`: every node, relationship, provenance list and vector id).
"""

from __future__ import annotations

import os
import signal
import sys
from functools import cache
from pathlib import Path
from typing import Any

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article
from graphwire.core.settings import Settings
from graphwire.ingest.extractors.offline import OfflineExtractor
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.loaders import load_articles
from graphwire.ingest.pipeline import IngestOptions, delete_documents, ingest_articles
from graphwire.ingest.report import IngestReport
from graphwire.ingest.resolve import EntityResolver
from graphwire.schema.model import load_schema
from support.schemas import news_caps

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "articles.jsonl"
DOCUMENTS = 10
CHANGED = (2, 4, 6, 7)  # updated documents: only their first sentence is kept, their other names become orphans
DELETED = 0  # the document the delete step removes
NAMED = 3  # the document the `name` step gives a sentence with new names (a run killed there, then reverted)
NEW_NAMES = " Ingrid Solvang of Brennholt Maritime praised the plan in Oslo."
BATCH_DOCUMENTS = 2
COLLECTION = "crash_test"


def corpus_v1() -> list[Article]:
    return load_articles(DEMO).articles[:DOCUMENTS]


def corpus_v2() -> list[Article]:
    articles = corpus_v1()
    for i in CHANGED:
        first = articles[i].body.split(". ")[0]
        articles[i] = articles[i].model_copy(update={"body": f"{first}. The rest of this report was withdrawn."})
    return articles


@cache
def gazetteer() -> Gazetteer:
    sources = (a.source for a in load_articles(DEMO).articles)
    return Gazetteer.from_sources(sources, schema=load_schema()).with_file(DEMO.parent / "gazetteer.yaml")


@cache
def extractor() -> OfflineExtractor:
    return OfflineExtractor(load_schema(), gazetteer())


def ingest(graph: Graph, articles: list[Article], store: ChunkStore, opts: IngestOptions | None = None) -> IngestReport:
    return ingest_articles(
        articles,
        graph,
        extractor(),
        options=opts or IngestOptions(progress=False, batch_documents=BATCH_DOCUMENTS),
        resolver=EntityResolver(publication_aliases=gazetteer().publication_aliases(), schema=load_schema()),
        chunk_store=store,
        schema=load_schema(),
    )


def corpus_named() -> list[Article]:
    articles = corpus_v1()
    articles[NAMED] = articles[NAMED].model_copy(update={"body": articles[NAMED].body + NEW_NAMES})
    return articles


def run_step(step: str, graph: Graph, store: ChunkStore, opts: IngestOptions | None = None) -> Any:
    if step == "update":
        return ingest(graph, corpus_v2(), store, opts)
    if step == "name":
        return ingest(graph, corpus_named(), store, opts)
    return delete_documents(graph, [corpus_v1()[DELETED].doc_id], chunk_store=store, provenance=news_caps())


def chroma_store(path: Path) -> ChunkStore:
    return ChunkStore.from_settings(Settings(chroma_path=path, chroma_collection=COLLECTION))


def _normal(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(sorted((_normal(v) for v in value), key=repr))
    if isinstance(value, dict):
        props = dict(value)
        if "chunk_ids" in props:  # provenance: each chunk with its evidence, in any order
            evidence = props.pop("evidence", None) or [None] * len(props["chunk_ids"])
            props["chunk_ids"] = sorted(zip(props["chunk_ids"], evidence, strict=True), key=repr)
        return tuple(sorted((k, _normal(v)) for k, v in props.items()))
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


def export_graph(graph: Graph) -> dict[str, Any]:
    """Every node and relationship with its properties (provenance lists as sets of (chunk id, evidence))."""
    nodes = sorted(_normal({"labels": r["labels"], **r["props"]}) for r in graph.read("check/export_nodes"))
    relationships = sorted(
        (r["type"], r["source"], r["target"], _normal(r["props"])) for r in graph.read("check/export_relationships")
    )
    return {"nodes": nodes, "relationships": relationships}


def export_store(graph: Graph, store: ChunkStore) -> dict[str, Any]:
    return {**export_graph(graph), "vector_ids": sorted(store.ids())}


def _kill_at(spec: str) -> IngestOptions:
    """Patch Graph.write (or the batch callback) to SIGKILL this process at `spec`."""
    name, _, nth = spec.rpartition(":")
    target = int(nth)
    calls = 0

    def die_on_count() -> None:
        nonlocal calls
        calls += 1
        if calls == target:
            os.kill(os.getpid(), signal.SIGKILL)

    if name == "after_batch":
        return IngestOptions(progress=False, batch_documents=BATCH_DOCUMENTS, after_batch=lambda _: die_on_count())
    real_write = Graph.write

    def write(self: Graph, statement: str, **params: Any) -> list[dict[str, Any]]:
        if statement == name:
            die_on_count()
        return real_write(self, statement, **params)

    Graph.write = write  # type: ignore[method-assign]
    return IngestOptions(progress=False, batch_documents=BATCH_DOCUMENTS)


if __name__ == "__main__":
    step, kill = sys.argv[1], sys.argv[2]
    options = _kill_at(kill)
    settings = Settings()
    run_step(step, Graph.from_settings(settings), chroma_store(Path(os.environ["CHROMA_PATH"])), options)
    sys.exit(3)  # not killed: the kill point was never reached
