"""Measure each PPR ingredient on the encyclopedia corpus (tests/data/encyclopedia): one change at a time.

Run from the repo root:  .venv/bin/python -m bench.ppr_ablation  (writes bench/ppr_ablation.md and .json)
Everything runs in memory on the corpus's snapshot rows; no Neo4j is needed, and the numbers are deterministic.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

import numpy as np  # noqa: E402

from bench._results import write_results  # noqa: E402
from graphwire.core.clients.embeddings import MiniLMOnnxEmbedder  # noqa: E402
from graphwire.retrieval.ppr.config import ChunkScoring, EdgeDirection, PPRConfig, ScoringOptions  # noqa: E402
from graphwire.retrieval.ppr.dictionary import DictionaryMatcher  # noqa: E402
from graphwire.retrieval.ppr.engine import PPREngine, build_walk_graph  # noqa: E402
from graphwire.retrieval.ppr.passages import EmbeddingPassageScorer  # noqa: E402
from graphwire.retrieval.ppr.relations import RelationTypeScorer  # noqa: E402
from graphwire.retrieval.ppr.snapshot import GraphSnapshot  # noqa: E402
from graphwire.schema.model import load_schema  # noqa: E402
from tests.support.encyclopedia import SCHEMA_PATH, EncyclopediaCorpus, load_corpus  # noqa: E402

OUT = Path(__file__).with_name("ppr_ablation")
COMMAND = ".venv/bin/python -m bench.ppr_ablation"
PASSAGE_SEEDS = 5
# The ablation base: plain PPR (entity seeds only); each row changes one thing from it.
PLAIN = PPRConfig(scoring=ScoringOptions(relation_cue_weight=0.0, passage_seed_weight=0.0))


@dataclass
class Variant:
    name: str
    group: str
    config: PPRConfig
    titles_only: bool = False


def _with(
    group: str,
    name: str,
    graph: dict[str, object] | None = None,
    scoring: dict[str, object] | None = None,
    titles_only: bool = False,
) -> Variant:
    base = PLAIN
    cfg = PPRConfig(
        graph=base.graph.model_copy(update=graph or {}), scoring=base.scoring.model_copy(update=scoring or {})
    )
    return Variant(name, group, cfg, titles_only)


def variants() -> list[Variant]:
    return [
        _with("baseline", "plain PPR (entity seeds, no cues, no passage seeds)"),
        Variant("graphwire defaults (PPRConfig())", "shipped", PPRConfig()),
        _with("chunk scoring", "passage node mass only (HippoRAG 2)", scoring={"chunk_scoring": ChunkScoring.PASSAGE}),
        _with(
            "chunk scoring",
            "entity->relationship->chunk only (FastGraphRAG)",
            scoring={"chunk_scoring": ChunkScoring.RELATIONS},
        ),
        _with("chunk scoring", "mixed (both, normalised)", scoring={"chunk_scoring": ChunkScoring.MIXED}),
        _with("edge direction", "forward only (subject -> object)", graph={"direction": EdgeDirection.FORWARD}),
        _with("edge direction", "backward only (object -> subject)", graph={"direction": EdgeDirection.BACKWARD}),
        _with("edge direction", "both ways", graph={"direction": EdgeDirection.BOTH}),
        _with("edge weights", "relationship weight x chunk support", graph={"weight_by_support": True}),
        _with("edge weights", "MENTIONS weight x count", graph={"weight_by_mentions": True}),
        _with("edge weights", "relationships 0.5 (mentions 1)", graph={"relation_weight": 0.5}),
        _with("edge weights", "relationships 2 (mentions 1)", graph={"relation_weight": 2.0}),
        _with("title edge", "title weight 0 (no title link)", graph={"title_weight": 0.0}),
        _with("title edge", "title weight 2", graph={"title_weight": 2.0}),
        _with("title edge", "title weight 5", graph={"title_weight": 5.0}),
        _with("title edge", "dictionary: titles only", titles_only=True),
        _with("damping", "damping 0.3", scoring={"damping": 0.3}),
        _with("damping", "damping 0.5 (HippoRAG 2)", scoring={"damping": 0.5}),
        _with("damping", "damping 0.7", scoring={"damping": 0.7}),
        _with("damping", "damping 0.85 (FastGraphRAG)", scoring={"damping": 0.85}),
        _with("specificity", "node specificity off", scoring={"node_specificity": False}),
        _with("synonyms", "synonym edges, ratio >= 90", graph={"synonym_threshold": 90.0}),
        _with("synonyms", "synonym edges, ratio >= 85", graph={"synonym_threshold": 85.0}),
        _with(
            "synonyms",
            "synonym edges, ratio >= 90, weight 0.5",
            graph={"synonym_threshold": 90.0, "synonym_weight": 0.5},
        ),
        _with("relation cues", "relation cues 0.3", scoring={"relation_cue_weight": 0.3}),
        _with("relation cues", "relation cues 0.6", scoring={"relation_cue_weight": 0.6}),
        _with("relation cues", "relation cues 0.9", scoring={"relation_cue_weight": 0.9}),
        _with("passage seeds", "passage seeds 0.05 of restart mass", scoring={"passage_seed_weight": 0.05}),
        _with("passage seeds", "passage seeds 0.2", scoring={"passage_seed_weight": 0.2}),
        _with("passage seeds", "passage seeds 0.5", scoring={"passage_seed_weight": 0.5}),
        _with(
            "combined", "cues 0.9 + passage seeds 0.5", scoring={"relation_cue_weight": 0.9, "passage_seed_weight": 0.5}
        ),
        _with(
            "combined", "cues 0.9 + passage seeds 0.2", scoring={"relation_cue_weight": 0.9, "passage_seed_weight": 0.2}
        ),
        _with(
            "combined",
            "cues 0.9 + passage node scoring",
            scoring={"relation_cue_weight": 0.9, "chunk_scoring": ChunkScoring.PASSAGE},
        ),
        _with(
            "combined",
            "cues 0.9 + passage seeds 0.5 + synonyms 90",
            graph={"synonym_threshold": 90.0},
            scoring={"relation_cue_weight": 0.9, "passage_seed_weight": 0.5},
        ),
    ]


def metrics(rankings: list[list[str]], golds: list[tuple[str, ...]]) -> dict[str, float]:
    def recall(k: int) -> float:
        return float(np.mean([len(set(r[:k]) & set(g)) / len(g) for r, g in zip(rankings, golds, strict=True)]))

    def perfect(k: int) -> float:
        return float(np.mean([set(g) <= set(r[:k]) for r, g in zip(rankings, golds, strict=True)]))

    return {"R@2": recall(2), "R@5": recall(5), "Perfect@2": perfect(2), "Perfect@5": perfect(5)}


def run_variant(
    corpus: EncyclopediaCorpus,
    snap: GraphSnapshot,
    variant: Variant,
    passage_scores: list[dict[str, float]],
    relevances: list[dict[str, float]],
) -> list[list[str]]:
    engine = PPREngine(build_walk_graph(snap, variant.config.graph), variant.config.scoring)
    matcher = DictionaryMatcher(snap, titles_only=variant.titles_only)
    rankings = []
    for q, passages, relevance in zip(corpus.questions, passage_scores, relevances, strict=True):
        seeds: dict[int, float] = {}
        for m in matcher.match(q.question):
            idx = snap.entity_index[m.key]
            seeds[idx] = max(seeds.get(idx, 0.0), m.score)
        p_seeds = (
            {snap.chunk_index[c]: s for c, s in passages.items()} if variant.config.scoring.passage_seed_weight else {}
        )
        if not seeds and not p_seeds:
            rankings.append([])
            continue
        run = engine.run(seeds, p_seeds, relevance)
        order = np.argsort(-run.chunk_scores, kind="stable")
        rankings.append([snap.chunk_ids[i] for i in order if run.chunk_scores[i] > 0])
    return rankings


def main() -> None:
    corpus = load_corpus()
    snap = corpus.snapshot()
    embedder = MiniLMOnnxEmbedder()
    scorer = EmbeddingPassageScorer(embedder, corpus.chunk_text())
    types = RelationTypeScorer(embedder, load_schema(SCHEMA_PATH).relationship_types)
    relevances = [types.relevance(q.question) for q in corpus.questions]
    passage_scores = [scorer.score(q.question, PASSAGE_SEEDS) for q in corpus.questions]
    golds = [q.gold_chunk_ids for q in corpus.questions]
    rows = [
        {
            "group": "reference",
            "variant": "dense passage similarity alone (MiniLM)",
            **metrics([list(scorer.score(q.question, 35)) for q in corpus.questions], golds),
        }
    ]
    for v in variants():
        rows.append(
            {
                "group": v.group,
                "variant": v.name,
                **metrics(run_variant(corpus, snap, v, passage_scores, relevances), golds),
            }
        )
    header = "| group | variant | R@2 | R@5 | Perfect@2 | Perfect@5 |\n|---|---|---|---|---|---|\n"
    body = "".join(
        f"| {r['group']} | {r['variant']} | {r['R@2']:.3f} | {r['R@5']:.3f} "
        f"| {r['Perfect@2']:.3f} | {r['Perfect@5']:.3f} |\n"
        for r in rows
    )
    intro = (
        f"# PPR ablation on the encyclopedia corpus\n\nCommand: `{COMMAND}`\n\n"
        f"{len(corpus.passages)} passages, {len(corpus.questions)} compositional questions "
        f"(tests/data/encyclopedia/corpus.json), {snap.n_entities} entities, {snap.n_relations} facts. "
        "Each row changes one thing from plain PPR. R@k: share of gold passages in the top k; Perfect@k: questions "
        "with every gold passage in the top k. Seeds: the title/name dictionary (exact, then fuzzy). Passage seeds: "
        f"MiniLM cosine, top {PASSAGE_SEEDS} passages. Relation cues: MiniLM cosine of the question to each "
        "relationship type's schema description (tests/data/encyclopedia/schema.yaml).\n\n"
    )
    write_results(OUT, {"command": COMMAND, "rows": rows}, intro + header + body)
    print(header + body)


if __name__ == "__main__":
    main()
