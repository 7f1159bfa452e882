"""The in-memory flat index: every chunk of the store with its BM25 weights and its dense vector.

Built once from the chunk store and rebuilt only when the store's revision marker changes (another process ingested or
deleted documents). Scoring runs with numpy/BLAS limited to one thread, so it does not fight onnxruntime's query
encoding for the same cores (a 10x slowdown measured on 2 cores without the limit).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from scipy import sparse
from threadpoolctl import ThreadpoolController

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.documents import Chunk
from graphwire.core.settings import default_of
from graphwire.core.stores.refresh import Derived, Refreshing
from graphwire.retrieval.flat.tokenize import bm25_tokens
from graphwire.schema.lexicon import written_as_word

Scores = npt.NDArray[np.float64]
_THREADPOOLS = ThreadpoolController()


def single_threaded() -> AbstractContextManager[Any]:
    """A context manager limiting BLAS/OpenMP pools to one thread for the numpy scoring inside it."""
    return cast(AbstractContextManager[Any], _THREADPOOLS.limit(limits=1))


class BM25Weights:
    """rank-bm25's Okapi weights (k1, b, idf floor) precomputed as a sparse term x chunk matrix.

    `scores(tokens)` equals `BM25Okapi.get_scores(tokens)` but costs one sparse row sum instead of a Python loop over
    every chunk per query token. The raw term counts are kept, so `restricted` gives the exact weights of a subset of
    the chunks (their own idf and average length) without tokenizing again.
    """

    EPSILON = 0.25  # rank-bm25's idf floor, as a share of the average idf

    def __init__(self, tokenized: Sequence[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.size = len(tokenized)
        self.k1, self.b = k1, b
        self.vocabulary: dict[str, int] = {}
        self.lengths = np.zeros(self.size)
        self.counts = sparse.csr_matrix((0, self.size))
        if not tokenized or not any(tokenized):
            self.matrix = sparse.csr_matrix((0, self.size))
            return
        rows, cols, values = [], [], []
        for doc, tokens in enumerate(tokenized):
            tokens = tokens or [""]  # as rank-bm25 is given an empty chunk: one empty token
            self.lengths[doc] = len(tokens)
            for term, tf in Counter(tokens).items():
                rows.append(self.vocabulary.setdefault(term, len(self.vocabulary)))
                cols.append(doc)
                values.append(tf)
        self.counts = sparse.csr_matrix(
            (np.asarray(values, dtype=np.float64), (rows, cols)), shape=(len(self.vocabulary), self.size)
        )
        self.matrix = self._weights()

    def _weights(self) -> sparse.csr_matrix:
        counts, size = self.counts, self.size
        df = np.diff(counts.indptr).astype(np.float64)  # chunks holding each term (counts has no stored zeros)
        present = df > 0
        idf = np.zeros(len(df))
        idf[present] = np.log(size - df[present] + 0.5) - np.log(df[present] + 0.5)
        floor = self.EPSILON * float(idf[present].mean()) if present.any() else 0.0
        idf[present & (idf < 0)] = floor
        terms = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
        docs = counts.indices
        tf = counts.data
        norm = self.k1 * (1 - self.b + self.b * self.lengths / self.lengths.mean())
        values = idf[terms] * tf * (self.k1 + 1) / (tf + norm[docs])
        return sparse.csr_matrix((values, docs, counts.indptr.copy()), shape=counts.shape)

    def restricted(self, columns: npt.NDArray[np.int64]) -> BM25Weights:
        """The weights BM25 gives the chunks at `columns` (ascending) as a corpus of their own."""
        out = BM25Weights.__new__(BM25Weights)
        out.size, out.k1, out.b = len(columns), self.k1, self.b
        out.vocabulary = self.vocabulary
        out.lengths = self.lengths[columns]
        out.counts = sparse.csr_matrix(self.counts[:, columns])
        out.counts.eliminate_zeros()
        out.matrix = out._weights() if out.size and out.counts.nnz else sparse.csr_matrix((0, out.size))
        if not out.matrix.shape[0]:
            out.vocabulary = {}
        return out

    def scores(self, tokens: Sequence[str]) -> Scores:
        rows = [self.vocabulary[t] for t in tokens if t in self.vocabulary]
        if not rows:
            return np.zeros(self.size)
        # only the question's rows of the term-chunk matrix: a product with the whole matrix reads every entry
        terms, counts = np.unique(rows, return_counts=True)
        return np.asarray(self.matrix[terms].T @ counts.astype(np.float64), dtype=np.float64).ravel()


_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class WordCase:
    """How often the corpus writes each word (lower-cased key) in lower case and capitalised: whether a question's
    lower-case word is a name the corpus knows ("oahu") or a common word that merely titles a page ("house")."""

    lower: Counter[str] = field(default_factory=Counter)
    capitalised: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, texts: Iterable[str]) -> WordCase:
        lower: Counter[str] = Counter()
        capitalised: Counter[str] = Counter()
        for text in texts:
            for word in _WORD.findall(text):
                (capitalised if word[0].isupper() else lower)[word.lower()] += 1
        return cls(lower, capitalised)

    def is_common(self, phrase: str) -> bool:
        """A phrase every word of which the corpus mostly writes in lower case (no word of it is a name here)."""
        words = [w.lower() for w in _WORD.findall(phrase)]
        return bool(words) and all(written_as_word(self.lower[w], self.capitalised[w]) for w in words)


@dataclass(frozen=True)
class WordCounts:
    """Per chunk, how often it writes each word in lower case and capitalised (chunks x words): the `WordCase` of any
    subset of the chunks is a sum of rows, where counting their texts again takes seconds on a news corpus."""

    words: list[str]
    lower: sparse.csr_matrix
    capitalised: sparse.csr_matrix

    @classmethod
    def of(cls, texts: Iterable[str]) -> WordCounts:
        vocabulary: dict[str, int] = {}
        parts: tuple[list[int], list[int], list[int], list[int]] = ([], [], [], [])  # lower rows, cols; capitalised
        size = 0
        for size, text in enumerate(texts, start=1):
            for word in _WORD.findall(text):
                rows, cols = (parts[2], parts[3]) if word[0].isupper() else (parts[0], parts[1])
                rows.append(size - 1)
                cols.append(vocabulary.setdefault(word.lower(), len(vocabulary)))
        shape = (size, len(vocabulary))
        lower = sparse.csr_matrix((np.ones(len(parts[0])), (parts[0], parts[1])), shape=shape)
        capitalised = sparse.csr_matrix((np.ones(len(parts[2])), (parts[2], parts[3])), shape=shape)
        return cls(list(vocabulary), lower, capitalised)

    def case(self, rows: npt.NDArray[np.int64]) -> WordCase:
        """The `WordCase` of the chunks at `rows`."""
        lower, capitalised = (np.asarray(m[rows].sum(axis=0)).ravel() for m in (self.lower, self.capitalised))
        return WordCase(
            Counter({self.words[i]: int(lower[i]) for i in np.flatnonzero(lower)}),
            Counter({self.words[i]: int(capitalised[i]) for i in np.flatnonzero(capitalised)}),
        )


SENTENCE_POOL = 500  # chunks per query vector whose sentences are scored: the best by their own similarity
# A chunk of fewer sentences is scored by its own vector alone: its closest sentence is most of its text, and a sentence
# without the other loses its context ("It was directed by ..."); bench/sentence_vectors.md measures both rules.
MIN_SENTENCES = 3


@dataclass(frozen=True)
class SentenceIndex:
    """Every chunk's sentence vectors, grouped by chunk: `owners` (ascending) is each sentence's chunk position.

    Only the sentences of each query's `pool` most similar chunks are scored: reading every sentence vector is bound
    by memory bandwidth (17 ms for 64,000 sentences and four queries on one core), and a chunk far down the chunk
    ranking is not lifted into the first ranks by one sentence (bench/sentence_vectors.md)."""

    owners: npt.NDArray[np.int64]
    vectors: npt.NDArray[np.float32]
    pool: int = SENTENCE_POOL
    min_sentences: int = MIN_SENTENCES
    # per chunk position, the first row of its sentences in `vectors` and how many count: given for a restricted
    # index, which reads its parent's vectors instead of copying them; else found from `owners`
    spans: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = None

    @cached_property
    def _ranges(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Per chunk position: the first row of its sentences and how many count (0 for none, or too few)."""
        if self.spans is not None:
            return self.spans
        size = int(self.owners[-1]) + 1 if len(self.owners) else 0
        counts = np.bincount(self.owners, minlength=size).astype(np.int64)
        first = np.cumsum(counts) - counts
        return first, np.where(counts >= self.min_sentences, counts, 0)

    def restricted(self, keep: npt.NDArray[np.int64]) -> SentenceIndex:
        """The sentences of the chunks at positions `keep` (ascending), by their positions among `keep`: the same
        vectors, read through spans (no copy)."""
        first, counts = self._ranges
        starts, sizes = np.zeros(len(keep), dtype=np.int64), np.zeros(len(keep), dtype=np.int64)
        known = keep < len(counts)  # chunks past the last one with sentences have none
        starts[known], sizes[known] = first[keep[known]], counts[keep[known]]
        return SentenceIndex(self.owners[:0], self.vectors, self.pool, self.min_sentences, (starts, sizes))

    def blend(self, chunk_scores: npt.NDArray[np.float64], query_vectors: npt.NDArray[np.float32]) -> Scores:
        """Per query (columns of `chunk_scores`, rows of `query_vectors`): the mean of each chunk's similarity and
        its closest sentence's; a chunk without sentences, or outside the query's pool, keeps its own similarity."""
        best = chunk_scores.copy()
        for column, query in enumerate(query_vectors):
            chunks, sentence_scores, starts = self._pool_scores(chunk_scores[:, column], query)
            if len(chunks):
                best[chunks, column] = np.maximum.reduceat(sentence_scores, starts)
        return np.asarray((chunk_scores + best) / 2, dtype=np.float64)

    def _pool_scores(
        self, chunk_scores: npt.NDArray[np.float64], query: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """The pool's chunks that have sentences, their sentences' similarities (grouped by chunk) and where each
        chunk's group starts."""
        first, counts = self._ranges
        scored = min(len(chunk_scores), len(counts))
        pool = min(self.pool, scored)
        if not pool:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64)
        chunks = np.sort(np.argpartition(-chunk_scores[:scored], pool - 1)[:pool])
        chunks = chunks[counts[chunks] > 0]
        sizes = counts[chunks]
        starts = np.cumsum(sizes) - sizes
        rows = np.repeat(first[chunks] - starts, sizes) + np.arange(int(sizes.sum()))
        return chunks, self.vectors[rows] @ query, starts


@dataclass(frozen=True)
class IndexSnapshot:
    """One consistent view of the store; retrievers score against a snapshot, never a half-rebuilt index."""

    revision: str
    chunks: list[Chunk]
    vectors: npt.NDArray[np.float32]
    bm25: BM25Weights
    positions: dict[str, int] = field(default_factory=dict)
    built_ms: float = 0.0
    sentences: SentenceIndex | None = None  # None: dense scores are the chunks' own similarities
    origin: tuple[IndexSnapshot, npt.NDArray[np.int64]] | None = None  # a restriction's: the snapshot, the rows kept

    @cached_property
    def word_case(self) -> WordCase:
        """How the corpus writes each word, counted on first use: only question linking needs it (about a second
        on 8,000 chunks), so a snapshot that serves the flat modes alone never pays for it. A restriction sums its
        rows of the shared snapshot's `word_counts`."""
        if self.origin is not None:
            shared, rows = self.origin
            return shared.word_counts.case(rows)
        return WordCase.of(chunk.text for chunk in self.chunks)

    @cached_property
    def word_counts(self) -> WordCounts:
        """Each chunk's word counts, made on a restriction's first `word_case`."""
        return WordCounts.of(chunk.text for chunk in self.chunks)

    def __len__(self) -> int:
        return len(self.chunks)

    def restricted(self, readable: frozenset[str], scope: str) -> IndexSnapshot:
        """The snapshot of only the chunks in `readable`, as if the store held nothing else: BM25's idf and lengths,
        the dense matrix and the sentences are those chunks' own (a restricted reader's rankings, retrieval/scope.py);
        `scope` names the reader's scope in the revision."""
        keep = np.asarray([i for i, chunk in enumerate(self.chunks) if chunk.id in readable], dtype=np.int64)
        chunks = [self.chunks[i] for i in keep]
        return IndexSnapshot(
            revision=f"{self.revision}@{scope}",
            chunks=chunks,
            vectors=self.vectors[keep] if len(self.vectors) else self.vectors,
            bm25=self.bm25.restricted(keep),
            positions={chunk.id: i for i, chunk in enumerate(chunks)},
            sentences=self.sentences.restricted(keep) if self.sentences is not None else None,
            origin=(self, keep),
        )

    def dense_scores(self, query_vector: npt.NDArray[np.float32]) -> Scores:
        return self.dense_scores_many(np.asarray(query_vector, dtype=np.float32).reshape(1, -1))[0]

    def dense_scores_many(self, query_vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        """One row of chunk scores per query vector (one pass over the matrices for all of a question's texts)."""
        if not len(self.chunks):
            return np.zeros((len(query_vectors), 0))
        with single_threaded():
            scores = np.asarray(self.vectors @ query_vectors.T, dtype=np.float64)
            if self.sentences is not None:
                scores = self.sentences.blend(scores, query_vectors)
        return scores.T

    def bm25_scores(self, tokens: Sequence[str]) -> Scores:
        with single_threaded():
            return self.bm25.scores(tokens)


Tokenizer = Callable[[str], list[str]]


# Tuned on the first half of the MultiHop-RAG questions (short news chunks): rank-bm25's defaults are 1.5 / 0.75.
BM25_K1: float = default_of("bm25_k1")
BM25_B: float = default_of("bm25_b")


def build_snapshot(
    store: ChunkStore, revision: str, tokenizer: Tokenizer = bm25_tokens, k1: float = BM25_K1, b: float = BM25_B
) -> IndexSnapshot:
    started = time.perf_counter()
    chunks, vectors = store.get_all_with_vectors()
    positions = {chunk.id: i for i, chunk in enumerate(chunks)}
    found = store.sentence_vectors(positions)
    bm25 = BM25Weights([tokenizer(chunk.text) for chunk in chunks], k1=k1, b=b)
    return IndexSnapshot(
        revision=revision,
        chunks=chunks,
        vectors=vectors,
        bm25=bm25,
        positions=positions,
        built_ms=(time.perf_counter() - started) * 1000,
        sentences=SentenceIndex(*found) if found is not None else None,
    )


class FlatIndex:
    """Holds the current snapshot of a chunk store; shared by all flat retrievers over that store."""

    def __init__(
        self,
        store: ChunkStore,
        tokenizer: Tokenizer = bm25_tokens,
        check_every_s: float = 1.0,
        bm25_k1: float = BM25_K1,
        bm25_b: float = BM25_B,
    ) -> None:
        self.store = store
        self.tokenizer = tokenizer
        self.bm25_k1 = bm25_k1
        self.bm25_b = bm25_b
        self.check_every_s = check_every_s
        self._cache: Refreshing[str, IndexSnapshot] = Refreshing(
            store.revision, self._build, check_every_s, name="flat_index"
        )

    def _build(self, revision: str) -> IndexSnapshot:
        return build_snapshot(self.store, revision, self.tokenizer, self.bm25_k1, self.bm25_b)

    def snapshot(self) -> IndexSnapshot:
        """The current snapshot, rebuilt first if the store changed (checked at most every `check_every_s`)."""
        return self._cache.get()

    @property
    def current(self) -> IndexSnapshot | None:
        """The snapshot built last, without building or checking it (None before the first `snapshot`)."""
        return self._cache.current

    def expire(self) -> None:
        """Check the store's revision on the next `snapshot` (this process just wrote to the store)."""
        self._cache.expire()

    def invalidate(self) -> None:
        self._cache.invalidate()


class ScopedFlatIndex(FlatIndex):
    """The flat index as a reader of only `readable` chunks sees it: the shared index's current snapshot restricted
    to them (`IndexSnapshot.restricted`), made again when the shared one is rebuilt."""

    def __init__(self, base: FlatIndex, readable: frozenset[str], scope: str) -> None:
        self.base = base
        self.store = base.store
        self.tokenizer = base.tokenizer
        self.bm25_k1, self.bm25_b, self.check_every_s = base.bm25_k1, base.bm25_b, base.check_every_s
        self._view: Derived[IndexSnapshot] = Derived(lambda shared: shared.restricted(readable, scope))

    def snapshot(self) -> IndexSnapshot:
        return self._view.of(self.base.snapshot())

    @property
    def current(self) -> IndexSnapshot | None:
        return self._view.current

    def expire(self) -> None:
        self.base.expire()

    def invalidate(self) -> None:
        self.base.invalidate()
