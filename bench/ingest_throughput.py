"""Ingestion benchmark: offline extraction throughput, Neo4j write throughput, and graph quality.

In this order, on one Neo4j (a throwaway local server started for the run, so its JVM starts cold):
1. writes: a synthetic news corpus of `--synthetic-chunks` one-chunk articles made from templates over fictional
   companies, people, cities and outlets, written with the extractions the generator planted (the same rows and
   statements the pipeline uses), so it measures Neo4j rather than spaCy. Twice into an emptied database: run 1 on
   the cold JVM, run 2 warm.
2. the shared MultiHop-RAG rebuild (`../shared/data/multihop-rag/corpus.facts.json`) through the real pipeline with
   its defaults (load, chunk, spaCy + pattern extraction, prune, resolve, write, extraction and writing overlapped),
   `--repeats` times into an emptied database, plus graph quality (entities per label, relationships per type,
   duplicate candidates left after resolution);
3. offline extraction alone on `--extract-sample` synthetic chunks, in one process and with `--n-process` worker
   processes (the `graphwire ingest` default), with the relations found against those planted;
4. `--e2e-chunks` synthetic chunks through the real pipeline end to end.

Neo4j: NEO4J_URI/NEO4J_PASSWORD when set (the database is wiped!), else a throwaway local server.

    .venv/bin/python bench/ingest_throughput.py --out bench/ingest_throughput
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import SecretStr  # noqa: E402
from rapidfuzz import fuzz, process  # noqa: E402

from bench._results import write_results  # noqa: E402
from graphwire.cli.ingest_cmd import DEFAULT_PROCESSES  # noqa: E402
from graphwire.core.clients.graph import Graph  # noqa: E402
from graphwire.core.documents import Article, Chunk  # noqa: E402
from graphwire.core.names import digits_of  # noqa: E402
from graphwire.core.servers.neo4j_server import LocalNeo4j, free_port  # noqa: E402
from graphwire.core.settings import Settings  # noqa: E402
from graphwire.core.stores.bootstrap import apply_schema, empty_graph  # noqa: E402
from graphwire.ingest.chunker import chunk_article  # noqa: E402
from graphwire.ingest.extractors.offline import OfflineExtractor  # noqa: E402
from graphwire.ingest.gazetteer import Gazetteer, KnownEntity  # noqa: E402
from graphwire.ingest.known_relations import KnownRelations  # noqa: E402
from graphwire.ingest.loaders import load_articles  # noqa: E402
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction  # noqa: E402
from graphwire.ingest.pipeline import IngestOptions, fill_graph_counts, ingest_articles  # noqa: E402
from graphwire.ingest.prune import prune  # noqa: E402
from graphwire.ingest.report import IngestReport  # noqa: E402
from graphwire.ingest.resolve import EntityResolver  # noqa: E402
from graphwire.ingest.rows import build_rows  # noqa: E402
from graphwire.ingest.writer import GraphWriter  # noqa: E402
from graphwire.schema.model import load_schema  # noqa: E402
from tests.support.schemas import news_caps  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED_CORPUS = REPO.parent / "shared" / "data" / "multihop-rag" / "corpus.facts.json"
WIPE_BATCH = 50_000  # relationships, then nodes, per transaction when the database is emptied
logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)


@contextmanager
def neo4j_graph() -> Iterator[Graph]:
    if os.environ.get("NEO4J_URI"):
        graph = Graph.from_settings(Settings())
    else:
        home = Path(tempfile.mkdtemp(prefix="graphwire-bench-"))
        server = LocalNeo4j(
            home, bolt_port=free_port(), http_port=None, heap=os.environ.get("BENCH_HEAP", "1g"), pagecache="512m"
        )
        server.start(timeout_s=300)
        graph = Graph.from_settings(
            Settings(neo4j_uri=server.bolt_uri, neo4j_password=SecretStr(server.password_file.read_text().strip()))
        )
    try:
        empty_graph(graph, WIPE_BATCH)
        apply_schema(graph)
        yield graph
    finally:
        graph.close()
        if not os.environ.get("NEO4J_URI"):
            server.stop()
            shutil.rmtree(home, ignore_errors=True)


def relationship_total(graph: Graph) -> int:
    return sum(r["n"] for r in graph.read("ingest/count_relationships_by_type"))


# ---- shared corpus: the real pipeline end to end -----------------------------------------------------------------
def bench_shared_corpus(graph: Graph, path: Path, n_process: int, with_quality: bool) -> dict[str, Any]:
    loaded = load_articles(path)
    gazetteer = Gazetteer.from_sources((a.source for a in loaded.articles), schema=load_schema())
    extractor = OfflineExtractor(load_schema(), gazetteer, n_process=n_process)
    t0 = time.perf_counter()
    extractor.nlp  # noqa: B018  (load the model outside the timed run)
    load_s = time.perf_counter() - t0
    options = IngestOptions(progress=False)  # the pipeline's defaults, as `graphwire ingest` runs it
    resolver = EntityResolver(publication_aliases=gazetteer.publication_aliases(), schema=load_schema())
    report = ingest_articles(
        loaded.articles, graph, extractor, options=options, resolver=resolver, schema=load_schema()
    )
    rels = relationship_total(graph)
    chars = sum(len(c.text) for a in loaded.articles for c in chunk_article(a))
    return {
        "documents": report.documents_written,
        "chunks": report.chunks_written,
        "chunk_chars_mean": round(chars / max(report.chunks_written, 1)),
        "model_load_s": round(load_s, 2),
        "elapsed_s": round(report.elapsed_s, 2),
        "end_to_end_chunks_per_s": round(report.chunks_written / report.elapsed_s, 1),
        "extract_s": round(report.extract_s, 2),
        "extraction_chunks_per_s": round(report.chunks_written / report.extract_s, 1),
        "write_s": round(report.write_s, 2),
        "relationships_written": rels,
        "write_relationships_per_s": round(rels / report.write_s),
        "quality": quality(graph, report) if with_quality else None,
    }


def quality(graph: Graph, report: IngestReport) -> dict[str, Any]:
    entities = graph.read("ingest/existing_entities")
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in entities:
        by_label[e["label"]].append(e)
    fuzzy_pairs, surname_dupes = 0, 0
    flagged: set[str] = set()
    examples: list[list[str]] = []
    for label, items in by_label.items():
        norms = [e["norm"] for e in items]
        for i, e in enumerate(items):
            for match, score, j in process.extract(e["norm"], norms, scorer=fuzz.ratio, score_cutoff=85, limit=5):
                if j > i and digits_of(match) == digits_of(e["norm"]) and min(len(match), len(e["norm"])) >= 5:
                    fuzzy_pairs += 1
                    flagged |= {e["key"], items[j]["key"]}
                    if len(examples) < 12:
                        examples.append([label, e["name"], items[j]["name"], str(round(score))])
        if label == "Person":
            last_names = Counter(e["norm"].split()[-1] for e in items if " " in e["norm"])
            for e in items:
                if " " not in e["norm"] and last_names.get(e["norm"], 0) == 1:
                    surname_dupes += 1
                    flagged.add(e["key"])
    fill_graph_counts(graph, report)
    return {
        "entities": len(entities),
        "entities_per_label": report.entities_per_label,
        "relationships_per_type": report.relationships_per_type,
        "surface_forms_merged_by_resolution": report.merged,
        "fuzzy_merges": report.fuzzy_merged,
        "pruned": report.pruned,
        "duplicate_candidates": {
            "fuzzy_pairs_85_to_threshold": fuzzy_pairs,
            "lone_surnames_matching_one_full_name": surname_dupes,
            "entities_flagged": len(flagged),
            "duplicate_rate": round(len(flagged) / max(len(entities), 1), 4),
            "examples": examples,
        },
    }


# ---- synthetic corpus ---------------------------------------------------------------------------------------------
def _words(text: str) -> list[str]:
    return text.split()


FIRST = _words("Ada Ben Cara Dev Eli Fay Gus Hana Ivo Jun Kai Lea Mo Nia Oto Pia Quin Rui Sol Tea Uma Vik Wen Xia "
         "Yuri Zoe Alma Bram Cleo Dario Edda Fynn Greta Hugo Ines Jonas Kira Luca Maja Nils")  # fmt: skip
LAST = _words("Park Ortiz Lee Rao Berg Holm Voss Reyes Kelly Byrne Visser Almeida Brandt Natarajan Lindqvist "
        "Whitaker Duarte Marsh Quill Hart Okafor Novak Silva Tanaka Meyer Rossi Dubois Kowalski Jensen Moreau Costa "
        "Haddad Sato Varga Nakamura Fischer Laine Petrov Ibsen Moretti")  # fmt: skip
WORDS = _words("Arden Beacon Cobalt Delta Ember Fjord Granite Harbor Iris Juniper Kestrel Lumen Meridian Northwind "
         "Onyx Paragon Quarry Redwood Summit Tidal Umber Vantor Willow Xenon Yarrow Zephyr Atlas Boreal Cinder Drift "
         "Echo Flint Glacier Halcyon Indigo Jasper Kinetic Lattice Mosaic Nimbus")  # fmt: skip
SUFFIXES = _words("Labs Robotics Capital Ventures Systems Networks Logistics Dynamics Materials Analytics "
            "Semiconductors Holdings Technologies Studios Energy Therapeutics")  # fmt: skip
CITIES = _words("Berlin Munich Hamburg Rotterdam Antwerp Lisbon Porto Dublin Paris Lyon Madrid Milan Vienna Prague "
          "Warsaw Oslo Stockholm Helsinki Copenhagen Zurich")  # fmt: skip
OUTLETS = ["Circuit Weekly", "The Ledger Daily", "Harbor Times", "Metro Business Wire", "Northern Post",
           "Signal Review", "The Market Desk", "Delta Observer"]  # fmt: skip
FILLER = [
    "Analysts expect demand to grow next year as customers replace older systems.",
    "The company did not give a timetable for the next phase of the project.",
    "Shares in listed rivals moved little after the announcement on Monday.",
    "People familiar with the matter said talks had lasted several months.",
]


class Synthetic:
    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.companies = sorted({f"{a} {b} {s}" for a in WORDS for b in WORDS if a != b for s in SUFFIXES[:2]})
        self.rng.shuffle(self.companies)
        self.companies = self.companies[:4000]
        self.people = [f"{f} {m} {last}" for f in FIRST for m in "ABCD" for last in LAST]
        self.rng.shuffle(self.people)
        self.people = self.people[:5000]

    def gazetteer(self) -> Gazetteer:
        known = [KnownEntity(name=c, label="Organization") for c in self.companies]
        known += [KnownEntity(name=p, label="Person") for p in self.people]
        known += [KnownEntity(name=c, label="Location") for c in CITIES]
        return Gazetteer.from_sources(OUTLETS, include_common=False, schema=load_schema()).model_copy(
            update={"known": known}
        )

    def article(self, i: int) -> tuple[Article, list[tuple[str, str, str, str, str, str]]]:
        """One ~600-character article and the (source, label, type, target, label, sentence) facts it states."""
        r = self.rng
        c1, c2, c3 = r.sample(self.companies, 3)
        p1, p2 = r.sample(self.people, 2)
        city = r.choice(CITIES)
        money = r.randint(5, 400)
        facts = [
            (f"{p1}, the chief executive of {c1}, said the company would expand into {city}.",
             (p1, "Person", "CEO_OF", c1, "Organization")),
            (f"{c2} invested ${money} million in {c1} last week.",
             (c2, "Organization", "INVESTED_IN", c1, "Organization")),
            (f"{c1}, which is based in {city}, employs about {money * 10} people.",
             (c1, "Organization", "LOCATED_IN", city, "Location")),
            (f"{c2} acquired {c3} in a deal that closed in the spring.",
             (c2, "Organization", "OWNS", c3, "Organization")),
            (f"{p2}, a board member of {c2}, declined to comment.", (p2, "Person", "WORKS_FOR", c2, "Organization")),
            (f"{c3} sued {c1} over unpaid invoices.", (c3, "Organization", "SUED", c1, "Organization")),
        ]  # fmt: skip
        chosen = r.sample(facts, 4)
        sentences = [s for s, _ in chosen] + r.sample(FILLER, 2)
        r.shuffle(sentences)
        day = date(2025, 1, 1) + timedelta(days=r.randint(0, 364))
        article = Article(title=f"{c1} update {i}", body=" ".join(sentences), source=r.choice(OUTLETS),
                          published_at=day, url=f"https://synthetic.test/{i}")  # fmt: skip
        return article, [(*fact, sentence) for sentence, fact in chosen]


def planted_extraction(chunk: Chunk, facts: list[tuple[str, str, str, str, str, str]]) -> Extraction:
    entities: dict[tuple[str, str], ExtractedEntity] = {}
    relations = []
    for source, s_label, rel, target, t_label, sentence in facts:
        for name, label in ((source, s_label), (target, t_label)):
            entities.setdefault((name, label), ExtractedEntity(name=name, label=label, aliases=[name]))
        relations.append(ExtractedRelation(source=source, source_label=s_label, type=rel, target=target,
                                           target_label=t_label, evidence=sentence))  # fmt: skip
    return Extraction(chunk_id=chunk.id, entities=list(entities.values()), relations=relations)


class TimedWriter(GraphWriter):
    """The pipeline's writer, timing each statement."""

    def __init__(self, graph: Graph, batch_size: int) -> None:
        super().__init__(graph, batch_size, provenance=news_caps())
        self.seconds: Counter[str] = Counter()
        self.rows: Counter[str] = Counter()

    def _batches(self, name: str, rows: Sequence[dict[str, Any]], concurrent: bool = False) -> None:
        t0 = time.perf_counter()
        super()._batches(name, rows, concurrent)
        self.seconds[name] += time.perf_counter() - t0
        self.rows[name] += len(rows)


def bench_writes(
    graph: Graph, synth: Synthetic, n_chunks: int, write_batch: int, docs_per_batch: int
) -> dict[str, Any]:
    pairs = [synth.article(i) for i in range(n_chunks)]
    chunks = [chunk_article(a)[0] for a, _ in pairs]
    schema = load_schema()
    writer = TimedWriter(graph, batch_size=write_batch)
    resolver, known = EntityResolver(schema=load_schema()), KnownRelations()
    rows_s, write_s = 0.0, 0.0
    for start in range(0, len(pairs), docs_per_batch):
        batch = pairs[start : start + docs_per_batch]
        batch_chunks = chunks[start : start + docs_per_batch]
        t0 = time.perf_counter()
        dropped: Counter[str] = Counter()
        extractions = [
            prune(planted_extraction(c, f), schema, dropped) for c, (_, f) in zip(batch_chunks, batch, strict=True)
        ]
        rows = build_rows([a for a, _ in batch], batch_chunks, extractions, resolver, known, provenance=news_caps())
        rows_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        writer.write(rows)
        writer.mark_done([{"id": a.doc_id, "content_hash": a.content_hash, "chunk_count": 1} for a, _ in batch])
        write_s += time.perf_counter() - t0
        print(f"  wrote {start + len(batch)}/{len(pairs)} chunks, {write_s:.0f} s in Neo4j", flush=True)
    rels = relationship_total(graph)
    report = IngestReport()
    fill_graph_counts(graph, report)
    return {
        "chunks": len(chunks),
        "chunk_chars_mean": round(sum(len(c.text) for c in chunks) / len(chunks)),
        "rows_s": round(rows_s, 2),
        "write_s": round(write_s, 2),
        "relationships_written": rels,
        "write_relationships_per_s": round(rels / write_s),
        "statements": {k: {"seconds": round(v, 2), "rows": writer.rows[k]} for k, v in writer.seconds.most_common()},
        "graph_counts": report.graph_counts,
        "relationships_per_type": report.relationships_per_type,
    }


def bench_extraction(synth: Synthetic, sample: int, n_process: int) -> dict[str, Any]:
    """Offline extraction alone, in batches of 64 chunks as the pipeline calls it; worker processes (when
    `n_process` > 1) are started and have loaded spaCy before the clock starts."""
    pairs = [synth.article(i) for i in range(sample)]
    chunks = [chunk_article(a)[0] for a, _ in pairs]
    extractor = OfflineExtractor(load_schema(), synth.gazetteer(), n_process=n_process, in_process_chunks=0)
    extractor.extract(chunks[:128])
    t0 = time.perf_counter()
    outcomes = [o for start in range(0, len(chunks), 64) for o in extractor.extract(chunks[start : start + 64])]
    extract_s = time.perf_counter() - t0
    extractor.close()
    return {
        "processes": n_process,
        "chunks": len(chunks),
        "chunk_chars_mean": round(sum(len(c.text) for c in chunks) / len(chunks)),
        "extract_s": round(extract_s, 2),
        "extraction_chunks_per_s": round(len(chunks) / extract_s, 1),
        "relations_found_vs_planted": [
            sum(len(o.relations) for o in outcomes if isinstance(o, Extraction)),
            sum(len(f) for _, f in pairs),
        ],
    }


def bench_synthetic_end_to_end(graph: Graph, synth: Synthetic, n_chunks: int, n_process: int) -> dict[str, Any]:
    articles = [synth.article(i)[0] for i in range(n_chunks)]
    extractor = OfflineExtractor(load_schema(), synth.gazetteer(), n_process=n_process)
    extractor.nlp  # noqa: B018
    report = ingest_articles(articles, graph, extractor, options=IngestOptions(progress=False), schema=load_schema())
    extractor.close()
    return {
        "processes": n_process,
        "chunks": report.chunks_written,
        "elapsed_s": round(report.elapsed_s, 2),
        "end_to_end_chunks_per_s": round(report.chunks_written / report.elapsed_s, 1),
        "extract_s": round(report.extract_s, 2),
        "write_s": round(report.write_s, 2),
        "relationships_written": relationship_total(graph),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=SHARED_CORPUS)
    parser.add_argument("--synthetic-chunks", type=int, default=50_000, help="chunks of the write benchmark")
    parser.add_argument("--write-runs", type=int, default=2, help="write benchmark runs (the first on a cold JVM)")
    parser.add_argument("--repeats", type=int, default=3, help="end-to-end runs on the shared corpus")
    parser.add_argument("--extract-sample", type=int, default=2_000, help="synthetic chunks for extraction alone")
    parser.add_argument("--e2e-chunks", type=int, default=10_000, help="synthetic chunks through the pipeline")
    parser.add_argument("--n-process", type=int, default=DEFAULT_PROCESSES, help="as `graphwire ingest --n-process`")
    parser.add_argument("--write-batch", type=int, default=Settings().ingest_batch_size, help="rows per UNWIND")
    parser.add_argument("--docs-per-batch", type=int, default=5_000, help="documents per write batch")
    parser.add_argument("--out", type=Path, default=None, help="write <out>.json and <out>.md")
    args = parser.parse_args()
    results: dict[str, Any] = {
        "command": "python " + " ".join(sys.argv),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_start": list(os.getloadavg()),
        },  # fmt: skip
        "write_runs": [],
        "shared_corpus_runs": [],
        "docs_per_batch": args.docs_per_batch,
        "write_batch": args.write_batch,
        "write_threads": Settings().ingest_write_threads,
    }
    with neo4j_graph() as graph:  # each part uses a fresh Synthetic(): the same seeded articles
        for run in range(args.write_runs):
            print(f"writes, run {run + 1} ...", flush=True)
            empty_graph(graph, WIPE_BATCH)
            results["write_runs"].append(bench_writes(graph, Synthetic(), args.synthetic_chunks, args.write_batch,
                                                      args.docs_per_batch))  # fmt: skip
            print(json.dumps(results["write_runs"][-1], indent=1)[:1200], flush=True)
        for run in range(args.repeats):
            print(f"shared corpus, run {run + 1} ...", flush=True)
            empty_graph(graph, WIPE_BATCH)
            results["shared_corpus_runs"].append(bench_shared_corpus(graph, args.corpus, args.n_process, run == 0))
            print({k: v for k, v in results["shared_corpus_runs"][-1].items() if k != "quality"}, flush=True)
        results["extraction"] = []
        for processes in sorted({1, args.n_process}):
            print(f"extraction, {processes} process(es) ...", flush=True)
            results["extraction"].append(bench_extraction(Synthetic(), args.extract_sample, processes))
            print(results["extraction"][-1], flush=True)
        print("synthetic end to end ...", flush=True)
        empty_graph(graph, WIPE_BATCH)
        results["synthetic_end_to_end"] = bench_synthetic_end_to_end(
            graph, Synthetic(), args.e2e_chunks, args.n_process
        )
        print(results["synthetic_end_to_end"], flush=True)
    results["machine"]["load_average_at_end"] = list(os.getloadavg())
    if args.out:
        write_results(args.out, results, markdown(results))


def markdown(r: dict[str, Any]) -> str:
    runs, q = r["shared_corpus_runs"], r["shared_corpus_runs"][0]["quality"]
    first, x = runs[0], r["synthetic_end_to_end"]
    lines = [
        "# Ingestion throughput and graph quality",
        "",
        f"Command: `{r['command']}`",
        "",
        f"Machine: {r['machine']['cpus']} cores; load average at start {r['machine']['load_average_at_start'][0]:.1f}, "
        f"at end {r['machine']['load_average_at_end'][0]:.1f}. One throwaway Neo4j 5.26 (heap 1 GB, page cache "
        "512 MB) for everything below, in this order; its JVM is cold for the first write run and the first "
        "shared-corpus run is the first time the pipeline's statements run on it.",
        "",
        "## Neo4j writes: synthetic corpus, planted extractions",
        "",
        f"The pipeline's rows and statements for {r['write_runs'][0]['chunks']} one-chunk articles, written in batches "
        f"of {r.get('docs_per_batch', 5000)} documents (`--docs-per-batch`), {r.get('write_batch', 10000)} rows per "
        f"UNWIND transaction and {r.get('write_threads', 2)} concurrent transactions for the CREATE statements (the "
        "`INGEST_*` defaults). Relationships/s = relationships in the graph / time in Neo4j writes.",
        "",
        "| run | chunks | resolution + rows | Neo4j writes | relationships | relationships/s |",
        "|---|---|---|---|---|---|",
        *[f"| {i + 1}{' (cold JVM)' if i == 0 else ''} | {w['chunks']} | {w['rows_s']} s | {w['write_s']} s | "
          f"{w['relationships_written']} | **{w['write_relationships_per_s']}** |"
          for i, w in enumerate(r["write_runs"])],
        "",
        "Time per statement (last run):",
        "",
        "| statement | seconds | rows |",
        "|---|---|---|",
        *[f"| `{k}` | {v['seconds']} | {v['rows']} |" for k, v in r["write_runs"][-1]["statements"].items()],
        "",
        f"Graph: {r['write_runs'][-1]['graph_counts']}",
        "",
        "## Shared corpus (corpus.facts.json) through the pipeline, offline extractor",
        "",
        f"{first['documents']} documents, {first['chunks']} chunks of {first['chunk_chars_mean']} characters on "
        f"average; spaCy model load {first['model_load_s']} s (not in the timings). Extraction and writing overlap, so "
        "end to end is less than their sum.",
        "",
        "| run | end to end | chunks/s | extraction | extraction chunks/s | Neo4j writes (writer thread) |",
        "|---|---|---|---|---|---|",
        *[f"| {i + 1} | {s['elapsed_s']} s | **{s['end_to_end_chunks_per_s']}** | {s['extract_s']} s | "
          f"{s['extraction_chunks_per_s']} | {s['write_s']} s ({s['relationships_written']} relationships) |"
          for i, s in enumerate(runs)],
        "",
        "## Synthetic corpus: extraction alone, and end to end",
        "",
        "| metric | value |",
        "|---|---|",
        *[f"| offline extraction alone, {e['processes']} process(es), {e['chunks']} chunks of "
          f"{e['chunk_chars_mean']} characters | {e['extract_s']} s, **{e['extraction_chunks_per_s']} chunks/s**; "
          f"relations found / planted {e['relations_found_vs_planted'][0]} / {e['relations_found_vs_planted'][1]} |"
          for e in r["extraction"]],
        f"| end to end through the pipeline, {x['processes']} extraction process(es), {x['chunks']} chunks | "
        f"{x['elapsed_s']} s, "
        f"**{x['end_to_end_chunks_per_s']} chunks/s** (extraction {x['extract_s']} s, writes {x['write_s']} s, "
        f"{x['relationships_written']} relationships) |",
        "",
        "## Graph quality on the shared corpus",
        "",
        f"Entities: {q['entities']}; surface forms merged by resolution: {q['surface_forms_merged_by_resolution']} "
        f"(fuzzy: {q['fuzzy_merges']}).",
        "",
        "| label | entities |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in q["entities_per_label"].items()],
        "",
        "| relationship type | count |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in q["relationships_per_type"].items()],
        "",
        "Duplicate candidates left after resolution (same label; fuzzy ratio 85 up to the merge threshold, same "
        "numbers, 5+ characters; or a lone surname matching exactly one full Person name in another document): "
        f"{q['duplicate_candidates']['fuzzy_pairs_85_to_threshold']} fuzzy pairs, "
        f"{q['duplicate_candidates']['lone_surnames_matching_one_full_name']} lone surnames; "
        f"**duplicate rate {q['duplicate_candidates']['duplicate_rate']:.1%}** of entities flagged.",
        "",
        "| label | name | candidate duplicate | ratio |",
        "|---|---|---|---|",
        *[f"| {' | '.join(e)} |" for e in q["duplicate_candidates"]["examples"]],
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
