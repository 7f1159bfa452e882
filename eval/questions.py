"""The evaluation's question and corpus records: MultiHop-RAG questions (scored by gold fact), title-scored
questions (scored by document title), corpus articles, and a loaded question set. Loading is `eval.datasets`."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

QUESTION_TYPES = ("inference_query", "comparison_query", "temporal_query", "null_query")
NULL_TYPE = "null_query"
NULL_TYPES = (NULL_TYPE, "null")  # a title-scored file may write either
METADATA_KEYS = ("source", "published_at", "url")

MULTIHOP_FORMAT = "multihop-rag"
TITLES_FORMAT = "titles"
FORMATS = ("auto", MULTIHOP_FORMAT, TITLES_FORMAT)


class DatasetError(ValueError):
    """A questions or corpus file that cannot be used; the message names the file and the record."""


class Evidence(BaseModel):
    """One gold evidence item. Only `title` and `fact` are guaranteed; the rest is absent for some shared items."""

    model_config = ConfigDict(extra="ignore")

    title: str
    fact: str
    source: str | None = None
    published_at: str | None = None
    url: str | None = None
    author: str | None = None
    category: str | None = None
    present_keys: frozenset[str] = Field(default_factory=frozenset, exclude=True)

    @property
    def has_full_metadata(self) -> bool:
        return all(key in self.present_keys for key in METADATA_KEYS)


class Question(BaseModel):
    """One MultiHop-RAG question; `index` is its position in the file it was loaded from, `id` a stable key."""

    model_config = ConfigDict(extra="ignore")

    index: int
    query: str
    answer: str
    question_type: str
    evidence_list: list[Evidence] = Field(default_factory=list)

    @property
    def id(self) -> str:
        digest = hashlib.sha1(self.query.encode("utf-8")).hexdigest()[:10]
        return f"q{self.index:05d}-{digest}"

    @property
    def is_null(self) -> bool:
        return self.question_type == NULL_TYPE

    @property
    def gold_facts(self) -> list[str]:
        return [item.fact for item in self.evidence_list]

    @property
    def gold_titles(self) -> list[str]:
        """Distinct evidence titles in order of first appearance."""
        return list(dict.fromkeys(item.title for item in self.evidence_list))

    @property
    def has_full_metadata(self) -> bool:
        return all(item.has_full_metadata for item in self.evidence_list)


class SupportingFact(BaseModel):
    """A gold sentence of a title-scored question: the document title and the sentence's index in it."""

    model_config = ConfigDict(extra="ignore")

    title: str
    sentence: int


class TitleQuestion(Question):
    """One title-scored question (the encyclopedia format); retrieval is scored by the gold documents' titles.

    A `Question` for the runner and the oracle: same `id`, `index`, `query`, `question_type` (the file's `type`:
    bridge, comparison, ...), `gold_titles` (from the file's `gold_titles` or `evidence`), no evidence facts; null
    when it names no document (an unanswerable question). `answer` is "" when the file has none (answers are then
    not scored).
    """

    titles: list[str]  # empty only for an unanswerable (null) question
    level: str | None = None
    source_id: str | None = None  # the file's own `id`
    supporting_facts: list[SupportingFact] = Field(default_factory=list)

    @property
    def gold_titles(self) -> list[str]:
        return list(self.titles)

    @property
    def is_null(self) -> bool:
        return not self.titles


EvalQuestion = Question  # a MultiHop-RAG `Question` or a title-scored `TitleQuestion`


class CorpusArticle(BaseModel):
    """One corpus record in the MultiHop-RAG corpus.json field names; dates stay as the file writes them."""

    model_config = ConfigDict(extra="ignore")

    title: str = Field(min_length=1)
    body: str = Field(min_length=1)
    source: str | None = None
    published_at: str | None = None
    url: str | None = None


class QuestionSet(BaseModel):
    path: Path
    questions: list[EvalQuestion]
    format: str = MULTIHOP_FORMAT

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def full_metadata_count(self) -> int:
        return sum(1 for q in self.questions if q.has_full_metadata)

    @property
    def type_counts(self) -> dict[str, int]:
        return dict(Counter(q.question_type for q in self.questions))

    def describe(self) -> str:
        types = ", ".join(f"{name} {count}" for name, count in sorted(self.type_counts.items()))
        if self.format == TITLES_FORMAT:
            return f"{len(self)} title-scored questions from {self.path} ({types})"
        return (
            f"{len(self)} questions from {self.path} ({types}); "
            f"{self.full_metadata_count} with full evidence metadata (source, published_at, url)"
        )
