"""Flat retrievers on a tiny corpus in a temporary Chroma folder: BM25, fusion, flat+, guidance, index refresh."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.retrieval.flat import (
    BM25Retriever,
    DenseRetriever,
    FlatIndex,
    FlatPlusRetriever,
    FusedRetriever,
    Guidance,
    GuidanceMode,
    build_flat_retrievers,
)
from graphwire.retrieval.flat.fusion import (
    best_rank_order,
    descending_order,
    part_rank_head,
    rank_sum_order,
    ranks_of,
    ranks_within,
    rrf,
    top_positions,
)
from graphwire.retrieval.flat.index import BM25Weights, Scores, WordCase, WordCounts
from graphwire.retrieval.flat.plus import FlatPlusConfig
from graphwire.retrieval.flat.tokenize import bm25_tokens
from graphwire.retrieval.timing import StageTimer
from graphwire.schema.model import load_schema

ARTICLES = [
    ("fed-oct", "The Fed", "Cnbc | World Business News Leader", date(2023, 10, 9),
     "The Federal Reserve held interest rates steady as inflation cooled."),
    ("fed-nov", "The Fed again", "Cnbc | World Business News Leader", date(2023, 11, 2),
     "The Federal Reserve held interest rates steady for a second meeting."),
    ("fed-tc", "Fintech and rates", "TechCrunch", date(2023, 10, 9),
     "Fintech startups say the Federal Reserve interest rates squeeze their funding."),
    ("gpt", "OpenAI dev day", "TechCrunch", date(2023, 11, 6),
     "OpenAI announced GPT-4 Turbo with a 128k context window at its developer day."),
    ("derby", "Derby day", "Sporting News", date(2023, 10, 21),
     "The striker scored twice as Arsenal won the north London derby."),
    ("unlabelled", "Mystery", None, None, "Sportsbooks moved their odds after the injury news."),
]  # fmt: skip


def _chunks() -> list[Chunk]:
    return [
        Chunk(id=f"{doc}:0", document_id=doc, index=0, text=text, title=title, source=source, published_at=day)
        for doc, title, source, day, text in ARTICLES
    ]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ChunkStore:
    folder: Path = tmp_path_factory.mktemp("flat")
    store = ChunkStore.from_settings(Settings(chroma_path=folder, chroma_collection="flat_test"))
    store.upsert(_chunks())
    return store


@pytest.fixture(scope="module")
def index(store: ChunkStore) -> FlatIndex:
    return FlatIndex(store, check_every_s=0)


def _ids(result: object) -> list[str]:
    return [c.chunk_id for c in result.chunks]  # type: ignore[attr-defined]


def test_tokens_keep_entities_and_numbers() -> None:
    assert bm25_tokens("GPT-4 Turbo's $1,000 U.S. launch of sportsbooks") == [
        "gpt-4", "gpt", "4", "turbo", "1000", "us", "launch", "sportsbook",
    ]  # fmt: skip


def test_sparse_bm25_equals_rank_bm25() -> None:
    corpus = [bm25_tokens(text) for *_, text in ARTICLES]
    query = bm25_tokens("Federal Reserve interest rates fintech rates")
    np.testing.assert_allclose(BM25Weights(corpus).scores(query), BM25Okapi(corpus).get_scores(query))
    assert BM25Weights(corpus).scores(["unseen"]).tolist() == [0.0] * len(corpus)


def test_restricted_bm25_is_bm25_of_the_subset_alone() -> None:
    """A subset's weights are its own corpus's: idf, floor and average length from those chunks only."""
    corpus = [bm25_tokens(text) for *_, text in ARTICLES] + [[]]
    query = bm25_tokens("Federal Reserve interest rates fintech rates")
    columns = np.array([i for i in range(len(corpus)) if i % 2 == 0])
    subset = [corpus[i] or [""] for i in columns]
    restricted = BM25Weights(corpus).restricted(columns)
    np.testing.assert_allclose(restricted.scores(query), BM25Okapi(subset).get_scores(query))
    assert restricted.size == len(columns)
    assert BM25Weights(corpus).restricted(np.array([], dtype=np.int64)).scores(query).tolist() == []


def test_a_subset_s_word_case_is_the_sum_of_its_chunks_word_counts() -> None:
    texts = [text for *_, text in ARTICLES] + ["", "Oahu oahu OAHU house House"]
    rows = np.array([0, 2, len(texts) - 1], dtype=np.int64)
    summed = WordCounts.of(texts).case(rows)
    counted = WordCase.of(texts[i] for i in rows)
    assert summed.lower == counted.lower and summed.capitalised == counted.capitalised
    assert summed.capitalised["oahu"] == 2 and summed.lower["house"] == 1


def test_rrf_and_ranks() -> None:
    assert ranks_of(np.array([0.1, 0.9, 0.5])).tolist() == [3, 1, 2]
    fused = rrf([np.array([1, 2, 3]), np.array([3, 1, 2])], k=60)
    assert top_positions(fused, 2) == [1, 0]  # 1/62+1/61 beats 1/61+1/63
    assert top_positions(fused, 5, allowed=np.array([False, False, True])) == [2]


@pytest.mark.parametrize("distinct", [3, 50, 10_000])
def test_descending_order_is_a_stable_sort_of_the_negated_scores(distinct: int) -> None:
    """Ties (few distinct values: most chunks score 0 in BM25, equal sums in fusion) keep position order."""
    rng = np.random.default_rng(distinct)
    for size in (0, 1, 2, 17, 8021):
        scores = rng.integers(0, distinct, size).astype(np.float64) / 7.0
        scores[rng.random(size) < 0.3] = 0.0
        np.testing.assert_array_equal(descending_order(scores), np.argsort(-scores, kind="stable"))
    assert descending_order(np.array([0.5, 0.9, 0.5, -0.0, 0.0])).tolist() == [1, 0, 2, 3, 4]


def test_best_rank_order_puts_a_first_place_in_any_ranking_ahead_then_the_next_best() -> None:
    # a row per chunk, a column per ranking
    table = np.array([[4, 3], [3, 4], [1, 5], [2, 1], [5, 2]])
    # rows 3 and 2 are each first somewhere, and 3's next best (2) beats 2's (5); 4's best is a second place; 0 and 1
    # both rank third and fourth, so they keep their order
    assert best_rank_order(table).tolist() == [3, 2, 4, 0, 1]
    assert best_rank_order(np.array([[7]])).tolist() == [0]


def test_rank_sum_order_lets_agreement_pass_a_single_first_place() -> None:
    # row 1 is first in one ranking only (1 + 1/100); row 2 is second, third and fourth (1/2 + 1/3 + 1/4 = 1.083)
    table = np.array([[9, 9, 9], [1, 100, 100], [2, 3, 4], [3, 2, 4], [1, 1, 1]])
    assert rank_sum_order(table).tolist() == [4, 2, 3, 1, 0]  # rows 2 and 3 tie: row order
    assert best_rank_order(table).tolist() == [4, 1, 2, 3, 0]  # the best rank first: a first place leads
    assert rank_sum_order(np.array([[7]])).tolist() == [0]


def test_the_head_order_is_the_rank_sum_unless_told_the_best_rank() -> None:
    scores = np.array([0.9, 0.8, 0.7])
    table = np.array([[1, 100, 100], [2, 2, 3], [5, 5, 5]])  # 0 is one ranking's first, 1 is near the top in all
    by_sum = part_rank_head(scores, lambda head: table[head], depth=3)
    by_best = part_rank_head(scores, lambda head: table[head], depth=3, by_sum=False)
    assert descending_order(by_sum).tolist() == [1, 0, 2]
    assert descending_order(by_best).tolist() == [0, 1, 2]
    assert FlatPlusConfig().order_by_sum


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranks_within_a_pool_are_the_pool_s_own_ranking(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 5, size=200).astype(np.float64)  # many ties, broken by position
    pool = rng.random(200) < 0.3
    positions = rng.choice(200, size=40, replace=False)
    alone = ranks_of(np.where(pool, scores, -np.inf))
    expected = np.where(pool[positions], alone[positions], 201)
    np.testing.assert_array_equal(ranks_within(scores, pool, positions), expected)


def test_the_head_is_put_in_part_rank_order_and_its_scores_still_fall() -> None:
    scores = np.array([0.1, 0.9, 0.8, 0.7, 0.05])
    clause = np.array([5, 3, 2, 4, 1])  # ranks position 2 above 1 and 3
    claim = np.array([5, 4, 3, 1, 2])  # ranks position 3 first
    asked: list[list[int]] = []

    def head_ranks(head: np.ndarray) -> np.ndarray:
        asked.append(head.tolist())
        return np.column_stack([clause[head], claim[head]])

    rescored = part_rank_head(scores, head_ranks, depth=3)
    assert asked == [[1, 2, 3]]  # only the head's ranks are asked for
    assert descending_order(rescored).tolist() == [3, 2, 1, 0, 4]  # the head: 3 (a first place), 2 (2, 3), 1 (3, 4)
    assert sorted(rescored[[1, 2, 3]].tolist()) == sorted(scores[[1, 2, 3]].tolist())  # the same scores, handed out
    assert rescored[0] == scores[0] and rescored[4] == scores[4]  # below the head: untouched
    assert part_rank_head(scores, lambda head: None, depth=3) is scores  # no part: the fused order stands
    held = np.array([0.9, -np.inf, 0.8])  # a chunk the ranking may not return
    ranks = np.array([3, 1, 2])
    assert np.array_equal(part_rank_head(held, lambda head: ranks[head][:, None], depth=3), [0.8, -np.inf, 0.9])


def test_part_ranks_rank_each_outlet_s_clause_among_its_own_chunks(store: ChunkStore, index: FlatIndex) -> None:
    plus = FlatPlusRetriever(index, store.embedder, schema=load_schema())
    snapshot = index.snapshot()
    question = "Did TechCrunch report on Federal Reserve rates and did CNBC report the rates were held steady?"
    features = plus.features(question, snapshot, StageTimer())
    table = plus.part_ranks(snapshot, features, plus.config, np.arange(len(snapshot)))
    assert table is not None and len(features.mentions) == 2
    assert table.shape == (len(snapshot), 2 * (len(features.mentions) + len(features.claim_dense)))
    ids = [chunk.id for chunk in snapshot.chunks]
    techcrunch_dense = table[:, 0]
    own = {ids[p] for p in np.flatnonzero(techcrunch_dense <= len(snapshot))}
    assert own == {"fed-tc:0", "gpt:0", "unlabelled:0"}  # TechCrunch's chunks and the unlabelled one
    assert sorted(techcrunch_dense[[ids.index(c) for c in own]].tolist()) == [1, 2, 3]
    assert ids[int(np.argmin(techcrunch_dense))] == "fed-tc:0"
    unnamed = plus.features("What did the Federal Reserve do about interest rates?", snapshot, StageTimer())
    assert (
        plus.part_ranks(snapshot, unnamed, plus.config, np.arange(len(snapshot))) is None
    )  # no outlet named: the fused order stands


def test_with_a_bridge_each_claim_of_a_question_asking_for_something_ranks_among_the_chunks_naming_it(
    store: ChunkStore, index: FlatIndex
) -> None:
    plus = FlatPlusRetriever(index, store.embedder, schema=load_schema())
    snapshot = index.snapshot()
    ids = [chunk.id for chunk in snapshot.chunks]
    bridge = np.zeros(len(snapshot))
    bridge[[ids.index("fed-oct:0"), ids.index("derby:0")]] = 1.5  # the bridge's name: in a CNBC and a sports chunk
    every = np.arange(len(snapshot))
    asking = (
        "Which central bank, reported by TechCrunch as squeezing fintech funding, held interest rates steady according"
        " to CNBC?"
    )
    features = plus.features(asking, snapshot, StageTimer())
    claims = len(features.claim_dense)
    assert claims >= 2 and not features.analysis.yes_no
    plain = plus.part_ranks(snapshot, features, plus.config, every)
    table = plus.part_ranks(snapshot, features, plus.config, every, bridge)
    assert plain is not None and table is not None
    assert table.shape == (len(snapshot), plain.shape[1] + 2 * claims)
    assert np.array_equal(table[:, : plain.shape[1]], plain)  # the parts' own rankings stand
    extra = table[:, plain.shape[1] :]
    # only the named outlets' chunk that names the bridge ranks (the sports chunk is no named outlet's)
    assert {ids[p] for p in np.flatnonzero((extra <= len(snapshot)).any(axis=1))} == {"fed-oct:0"}
    assert (extra[ids.index("fed-oct:0")] == 1).all()
    off = FlatPlusConfig(order_by_bridge=False)
    assert np.array_equal(plus.part_ranks(snapshot, features, off, every, bridge), plain)
    yes_no = plus.features(
        "Did TechCrunch report on Federal Reserve rates and did CNBC report the rates were held steady?",
        snapshot,
        StageTimer(),
    )
    assert np.array_equal(  # a yes/no question names what it asks about: its bridge is a neighbour
        plus.part_ranks(snapshot, yes_no, plus.config, every, bridge),
        plus.part_ranks(snapshot, yes_no, plus.config, every),
    )


def test_when_the_graph_guides_the_claims_dense_rankings_stay_out_of_the_order(
    store: ChunkStore, index: FlatIndex
) -> None:
    plus = FlatPlusRetriever(index, store.embedder, schema=load_schema())
    snapshot = index.snapshot()
    every = np.arange(len(snapshot))
    question = "Did TechCrunch report on Federal Reserve rates and did CNBC report the rates were held steady?"
    features = plus.features(question, snapshot, StageTimer())
    clauses, claims = 2 * len(features.mentions), len(features.claim_dense)
    assert claims >= 2
    alone = plus.part_ranks(snapshot, features, plus.config, every)
    guided = plus.part_ranks(snapshot, features, plus.config, every, guided=True)
    assert alone is not None and guided is not None
    assert alone.shape[1] == clauses + 2 * claims and guided.shape[1] == clauses + claims
    assert np.array_equal(guided[:, :clauses], alone[:, :clauses])  # the clauses' rankings stand
    assert np.array_equal(guided[:, clauses:], alone[:, clauses + 1 :: 2])  # each claim keeps its BM25 ranking
    kept = FlatPlusConfig(order_claim_dense_guided=True)
    assert np.array_equal(plus.part_ranks(snapshot, features, kept, every, guided=True), alone)


def test_a_clause_that_dates_its_report_ranks_among_that_day_s_chunks(store: ChunkStore, index: FlatIndex) -> None:
    plus = FlatPlusRetriever(index, store.embedder, schema=load_schema())
    snapshot = index.snapshot()
    question = "Did CNBC report on November 2, 2023 that the Federal Reserve held interest rates steady?"
    features = plus.features(question, snapshot, StageTimer())
    ids = [chunk.id for chunk in snapshot.chunks]

    def ranked(config: FlatPlusConfig) -> set[str]:
        table = plus.part_ranks(snapshot, features, config, np.arange(len(snapshot)))
        assert table is not None
        clause_dense = table[:, 0]
        return {ids[p] for p in np.flatnonzero(clause_dense <= len(snapshot))}

    assert ranked(FlatPlusConfig()) == {"fed-nov:0"}  # CNBC's report of that day
    assert ranked(FlatPlusConfig(order_by_date=False)) == {"fed-oct:0", "fed-nov:0", "unlabelled:0"}


def test_bm25_ranks_exact_terms_first(index: FlatIndex) -> None:
    result = BM25Retriever(index).retrieve("GPT-4 Turbo context window", top_k=3)
    assert _ids(result)[0] == "gpt:0"
    assert result.mode == "bm25" and len(result.chunks) == 3
    assert [c.score for c in result.chunks] == sorted((c.score for c in result.chunks), reverse=True)


def test_dense_and_fused_find_the_paraphrase(store: ChunkStore, index: FlatIndex) -> None:
    question = "Which football team beat its local rival?"
    assert _ids(DenseRetriever(store).retrieve(question, top_k=1)) == ["derby:0"]
    fused = FusedRetriever(index, store.embedder).retrieve(question, top_k=2)
    assert _ids(fused)[0] == "derby:0"
    assert {"embed", "dense", "bm25", "fuse", "total"} <= set(fused.timings_ms)


def test_flat_plus_prefers_named_outlet_and_date(store: ChunkStore, index: FlatIndex) -> None:
    plus = FlatPlusRetriever(index, store.embedder, schema=load_schema())
    by_outlet = plus.retrieve("What did TechCrunch report about Federal Reserve interest rates?", top_k=3)
    assert _ids(by_outlet)[0] == "fed-tc:0"
    by_date = plus.retrieve("Did CNBC say the Federal Reserve held rates steady, in its report on November 2, 2023?", 3)
    assert _ids(by_date)[0] == "fed-nov:0"
    assert by_date.details["publications"] == ["Cnbc"]
    assert by_date.details["dates"] == ["on November 2, 2023"]


def test_a_bridge_signal_adds_a_pick_the_chunk_naming_the_bridge(store: ChunkStore, index: FlatIndex) -> None:
    plus = FlatPlusRetriever(index, store.embedder, schema=load_schema())
    snapshot = index.snapshot()
    features = plus.features("What did TechCrunch and CNBC report about interest rates?", snapshot, StageTimer())
    picks_only = FlatPlusConfig(order_depth=0)  # the picks as they fall, not put in the parts' order after them
    without, _ = plus.rank(snapshot, features, 4, config=picks_only)
    bridge = snapshot.bm25_scores(index.tokenizer("OpenAI"))
    seen: list[list[int]] = []

    def signal(first: Scores) -> Scores:
        seen.append([int(p) for p in np.argsort(-first, kind="stable")[:4]])
        return bridge

    added, _ = plus.rank(snapshot, features, 4, bridge=signal, config=FlatPlusConfig(bridge_weight=5.0, order_depth=0))
    assert seen == [without]  # called once, with the first ranking
    assert [snapshot.chunks[p].id for p in without] == ["fed-tc:0", "fed-nov:0", "fed-oct:0", "gpt:0"]
    # each outlet keeps its pick; TechCrunch's second pick, the chunk naming the bridge, comes right after them
    assert [snapshot.chunks[p].id for p in added] == ["fed-tc:0", "fed-nov:0", "gpt:0", "fed-oct:0"]
    silent, _ = plus.rank(snapshot, features, 4, bridge=signal, config=FlatPlusConfig(bridge_weight=0.0, order_depth=0))
    assert silent == without and len(seen) == 1  # feedback off: the signal is not even asked for
    assert plus.rank(snapshot, features, 4, bridge=lambda first: None, config=picks_only)[0] == without


def test_guidance_restricts_or_boosts(store: ChunkStore, index: FlatIndex) -> None:
    question = "Federal Reserve interest rates"
    restricted = Guidance(chunk_ids=["derby:0", "gpt:0", "not-a-chunk"], mode=GuidanceMode.RESTRICT)
    for retriever in build_flat_retrievers(store, Settings(), load_schema()).values():
        assert set(_ids(retriever.retrieve_guided(question, 5, restricted))) == {"derby:0", "gpt:0"}
    boosted = Guidance(chunk_ids=["derby:0"], mode=GuidanceMode.BOOST, weight=5.0)
    assert _ids(FusedRetriever(index, store.embedder).retrieve_guided(question, 3, boosted))[0] == "derby:0"
    assert _ids(DenseRetriever(store).retrieve_guided(question, 3, boosted))[0] == "derby:0"


def test_index_rebuilds_when_the_store_changes(tmp_path: Path) -> None:
    store = ChunkStore.from_settings(Settings(chroma_path=tmp_path, chroma_collection="flat_refresh"))
    store.upsert(_chunks()[:2])
    index = FlatIndex(store, check_every_s=0)
    first = index.snapshot()
    assert len(first) == 2 and index.snapshot() is first  # unchanged store: same snapshot
    store.upsert(_chunks()[2:])
    assert len(index.snapshot()) == len(ARTICLES)
    store.delete_document("gpt")
    assert "gpt:0" not in index.snapshot().positions
    assert _ids(BM25Retriever(index).retrieve("GPT-4 Turbo", top_k=1)) != ["gpt:0"]


def test_registry_factories_share_one_store_and_index(tmp_path: Path) -> None:
    from graphwire.retrieval.flat.modes import bm25_mode, flat_plus_mode, fused_mode, vector_mode
    from graphwire.retrieval.registry import RetrievalContext

    ctx = RetrievalContext(Settings(chroma_path=tmp_path, chroma_collection="flat_modes"))
    vector, bm25, fused, plus = (factory(ctx) for factory in (vector_mode, bm25_mode, fused_mode, flat_plus_mode))
    assert [r.name for r in (vector, bm25, fused, plus)] == ["vector", "bm25", "fused", "flat_plus"]
    assert isinstance(vector, DenseRetriever) and isinstance(plus, FlatPlusRetriever)
    assert isinstance(bm25, BM25Retriever) and isinstance(fused, FusedRetriever)
    assert bm25.index is fused.index is plus.index and plus.index.store is vector.store
    vector.store.upsert(_chunks())
    assert _ids(plus.retrieve("GPT-4 Turbo context window", top_k=1)) == ["gpt:0"]


def test_fused_ranks_with_one_snapshot_while_the_store_grows(tmp_path: Path) -> None:
    """Another request may rebuild the index in the middle of a fused retrieval (the store grew): scoring and ranking
    must use the same snapshot (the API answered 500, 'operands could not be broadcast', when they did not)."""
    store = ChunkStore.from_settings(Settings(chroma_path=tmp_path, chroma_collection="flat_grow"))
    store.upsert(_chunks()[:2])
    index = FlatIndex(store, check_every_s=0)
    fused = FusedRetriever(index, store.embedder)
    embed_query = store.embedder.embed_query

    def embed_while_another_process_writes(text: str) -> np.ndarray:
        store.upsert(_chunks()[2:])  # lands between this retrieval's snapshot and its ranking
        return embed_query(text)

    fused.embedder = type("Racing", (), {"embed_query": staticmethod(embed_while_another_process_writes)})()
    result = fused.retrieve("Federal Reserve interest rates", top_k=5)
    assert set(_ids(result)) == {"fed-oct:0", "fed-nov:0"}  # the snapshot it started with
    assert len(index.snapshot()) == len(ARTICLES)  # the next retrieval sees the new chunks
