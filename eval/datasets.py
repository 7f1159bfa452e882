"""Question files: loading with clear errors, metadata coverage, subsets, type filters and sampling.

Two formats, detected per file (or named with `graphwire eval --format`):
- `multihop-rag`: MultiHop-RAG's `query`, `answer`, `question_type`, `evidence_list[{title, fact, ...}]`, scored by
  gold fact (the authors' metrics);
- `titles`: scored by document title, for any corpus: the encyclopedia format of `../shared/data/hotpotqa/` (`id`,
  `query`, `answer`, `type`, `level`, `gold_titles`, `supporting_facts`), or your own questions with `question` (or
  `query`), `answer`, `type` and `evidence` (a list of document titles, or of objects with a `title`), as in
  `data/demo/questions.json`. A file is in this format when its records carry `gold_titles` or `evidence` and no
  `evidence_list`. Questions of type `null` (or `null_query`) with no titles are unanswerable: the answer is scored
  as an abstention and retrieval is not scored.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphwire.core.paths import shared_data_dir

DEFAULT_DATA_DIR = shared_data_dir()
DEFAULT_QUESTIONS = DEFAULT_DATA_DIR / "multihop-rag" / "MultiHopRAG.json"
DEFAULT_CORPUS = DEFAULT_DATA_DIR / "multihop-rag" / "corpus.json"
SAMPLE_200 = DEFAULT_DATA_DIR / "cs564-sample-queries.json"

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


def _read_json_list(path: Path, what: str) -> list[Any]:
    if not path.exists():
        raise DatasetError(f"{what} file not found: {path}")
    if path.is_dir():
        raise DatasetError(f"{what} path is a directory, not a JSON file: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{what} file {path} is not UTF-8 text: {exc}") from exc
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise DatasetError(f"{what} file {path} is not valid JSON ({where}): {exc.msg}") from exc
    if not isinstance(data, list):
        raise DatasetError(f"{what} file {path} must hold a JSON list of records, found {type(data).__name__}")
    return data


def _read_jsonl(path: Path) -> list[Any]:
    """A JSONL corpus (one record per line, as `graphwire ingest` reads it); blank lines are skipped."""
    if not path.is_file():
        raise DatasetError(f"Corpus file not found: {path}")
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"Corpus file {path} line {number} is not valid JSON: {exc.msg}") from exc
    return records


def _parse_evidence(raw: Any, path: Path, index: int, position: int) -> Evidence:
    where = f"{path}: record {index}, evidence item {position}"
    if not isinstance(raw, dict):
        raise DatasetError(f"{where} must be an object, found {type(raw).__name__}")
    for key in ("title", "fact"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise DatasetError(f"{where} has no usable {key!r} (a non-empty string is required)")
    try:
        return Evidence.model_validate({**raw, "present_keys": frozenset(k for k, v in raw.items() if v is not None)})
    except ValidationError as exc:
        raise DatasetError(f"{where} is malformed: {exc.errors()[0]['loc']} {exc.errors()[0]['msg']}") from exc


def _parse_question(raw: Any, path: Path, index: int) -> Question:
    where = f"{path}: record {index}"
    if not isinstance(raw, dict):
        raise DatasetError(f"{where} must be an object, found {type(raw).__name__}")
    for key in ("query", "answer", "question_type"):
        if not isinstance(raw.get(key), str):
            raise DatasetError(f"{where} has no {key!r} string (keys present: {sorted(raw)})")
    evidence_raw = raw.get("evidence_list", [])
    if not isinstance(evidence_raw, list):
        raise DatasetError(f"{where}: 'evidence_list' must be a list, found {type(evidence_raw).__name__}")
    evidence = [_parse_evidence(item, path, index, pos) for pos, item in enumerate(evidence_raw)]
    if raw["question_type"] != NULL_TYPE and not evidence:
        raise DatasetError(f"{where} is a {raw['question_type']} with an empty evidence_list")
    return Question(
        index=index,
        query=raw["query"],
        answer=raw["answer"],
        question_type=raw["question_type"],
        evidence_list=evidence,
    )


def _is_title_record(raw: Any) -> bool:
    """Evidence named by document title alone: `gold_titles`, `evidence`, or an `evidence_list` without facts."""
    if not isinstance(raw, dict):
        return False
    if "evidence_list" in raw:
        items = raw["evidence_list"]
        return isinstance(items, list) and bool(items) and all(isinstance(i, dict) and not i.get("fact") for i in items)
    return "gold_titles" in raw or "evidence" in raw


def _is_neutral_record(raw: Any) -> bool:
    """An unanswerable question with no evidence: at home in either format."""
    if not isinstance(raw, dict) or raw.get("gold_titles") or raw.get("evidence") or raw.get("evidence_list"):
        return False
    return str(raw.get("question_type") or raw.get("type")) in NULL_TYPES


def _record_titles(raw: dict[str, Any], where: str) -> list[str]:
    """`gold_titles`, else the titles of `evidence` (strings, or objects with a `title`)."""
    titles = raw.get("gold_titles", raw.get("evidence", raw.get("evidence_list", [])))
    if not isinstance(titles, list):
        raise DatasetError(f"{where}: 'gold_titles' (or 'evidence') must be a list of document titles")
    out = []
    for item in titles:
        title = item.get("title") if isinstance(item, dict) else item
        if not isinstance(title, str) or not title.strip():
            raise DatasetError(f"{where}: every evidence item must be a non-empty title (or an object with a 'title')")
        out.append(title.strip())
    return list(dict.fromkeys(out))


def detect_format(records: Sequence[Any], path: Path) -> str:
    """`titles` when every record names its evidence by title alone (unanswerable ones may name none),
    `multihop-rag` when none does."""
    titled = [i for i, raw in enumerate(records) if _is_title_record(raw)]
    neutral = {i for i, raw in enumerate(records) if _is_neutral_record(raw)}
    if not titled:
        return MULTIHOP_FORMAT
    if len(titled) + len(neutral - set(titled)) == len(records):
        return TITLES_FORMAT
    other = next(i for i in range(len(records)) if i not in set(titled) | neutral)
    raise DatasetError(
        f"{path} mixes formats: record {titled[0]} has 'gold_titles' and no 'evidence_list' (title-scored), record "
        f"{other} does not; use one format per file or name it with --format"
    )


def _parse_title_question(raw: Any, path: Path, index: int) -> TitleQuestion:
    where = f"{path}: record {index}"
    if not isinstance(raw, dict):
        raise DatasetError(f"{where} must be an object, found {type(raw).__name__}")
    query = raw.get("query", raw.get("question"))
    if not isinstance(query, str) or not query.strip():
        raise DatasetError(f"{where} has no 'question' (or 'query') string (keys present: {sorted(raw)})")
    titles = _record_titles(raw, where)
    question_type = str(raw.get("type") or raw.get("question_type") or "all")
    question_type = NULL_TYPE if question_type in NULL_TYPES else question_type  # one name for the summaries
    if not titles and question_type not in NULL_TYPES:
        raise DatasetError(
            f"{where} names no evidence document: give 'evidence' (or 'gold_titles') titles, or type 'null' for a "
            "question the corpus cannot answer"
        )
    for key in ("answer", "type", "level", "id"):
        if raw.get(key) is not None and not isinstance(raw[key], str | int):
            raise DatasetError(f"{where}: {key!r} must be a string, found {type(raw[key]).__name__}")
    facts = raw.get("supporting_facts") or []
    if not isinstance(facts, list):
        raise DatasetError(f"{where}: 'supporting_facts' must be a list, found {type(facts).__name__}")
    try:
        supporting = [SupportingFact.model_validate(item) for item in facts]
    except ValidationError as exc:
        raise DatasetError(f"{where}: 'supporting_facts' is malformed: {exc.errors()[0]['msg']}") from exc
    return TitleQuestion(
        index=index,
        query=query,
        answer="" if raw.get("answer") is None else str(raw["answer"]),
        question_type=question_type,
        level=None if raw.get("level") is None else str(raw["level"]),
        source_id=None if raw.get("id") is None else str(raw["id"]),
        titles=titles,
        supporting_facts=supporting,
    )


def load_questions(path: Path | str, question_format: str = "auto") -> QuestionSet:
    """Load a questions file in either format (`auto` detects it from the records); missing evidence metadata is
    tolerated, missing essentials are not."""
    path = Path(path)
    if question_format not in FORMATS:
        raise DatasetError(f"Unknown questions format {question_format!r}; expected one of {list(FORMATS)}")
    records = _read_json_list(path, "Questions")
    if not records:
        raise DatasetError(f"Questions file {path} holds no records")
    chosen = detect_format(records, path) if question_format == "auto" else question_format
    if chosen == TITLES_FORMAT:
        titled = [_parse_title_question(raw, path, i) for i, raw in enumerate(records)]
        return QuestionSet(path=path, questions=list(titled), format=TITLES_FORMAT)
    parsed = [_parse_question(raw, path, i) for i, raw in enumerate(records)]
    return QuestionSet(path=path, questions=list(parsed), format=MULTIHOP_FORMAT)


CORPUS_NAMES = ("corpus.json", "corpus.jsonl", "articles.json", "articles.jsonl")


def default_corpus(question_set: QuestionSet) -> Path:
    """The corpus to check the stores against when none is named: for a title-scored file, a corpus file beside it
    (`corpus.json` as ../shared/data/hotpotqa/ ships it, or `articles.jsonl` as the demo does); otherwise the shared
    MultiHop-RAG corpus."""
    if question_set.format == TITLES_FORMAT:
        for name in CORPUS_NAMES:
            if (beside := question_set.path.parent / name).is_file():
                return beside
    return DEFAULT_CORPUS


def load_corpus(path: Path | str) -> list[CorpusArticle]:
    """Load a corpus in the MultiHop-RAG corpus.json field names (title, body, source, published_at, url, ...)."""
    path = Path(path)
    records = _read_jsonl(path) if path.suffix == ".jsonl" else _read_json_list(path, "Corpus")
    articles = []
    for index, raw in enumerate(records):
        if not isinstance(raw, dict):
            raise DatasetError(f"{path}: record {index} must be an object, found {type(raw).__name__}")
        try:
            articles.append(CorpusArticle.model_validate(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise DatasetError(f"{path}: record {index} is malformed: {first['loc']} {first['msg']}") from exc
    return articles


def filter_types(questions: Sequence[EvalQuestion], types: Iterable[str] | None) -> list[EvalQuestion]:
    """Keep the given question types; accepts short names ("inference") as well as the file's ("inference_query").
    Title-scored questions keep their file's own types (bridge, comparison, ...)."""
    if not types:
        return list(questions)
    if questions and all(isinstance(q, TitleQuestion) for q in questions):
        present = list(dict.fromkeys(q.question_type for q in questions))
        wanted_titles = set(types)
        if wanted_titles - set(present):
            raise DatasetError(
                f"Unknown question type(s) {sorted(wanted_titles - set(present))}; this file has {present}"
            )
        return [q for q in questions if q.question_type in wanted_titles]
    wanted = {t if t.endswith("_query") else f"{t}_query" for t in types}
    unknown = wanted - set(QUESTION_TYPES)
    if unknown:
        raise DatasetError(f"Unknown question type(s) {sorted(unknown)}; expected some of {list(QUESTION_TYPES)}")
    return [q for q in questions if q.question_type in wanted]


def sample(questions: Sequence[EvalQuestion], size: int | None, seed: int = 0) -> list[EvalQuestion]:
    """A fixed-seed random sample, returned in file order so runs and reports read the same way each time."""
    if size is None or size >= len(questions):
        return list(questions)
    if size < 1:
        raise DatasetError(f"Sample size must be at least 1, got {size}")
    picked = random.Random(seed).sample(range(len(questions)), size)
    return [questions[i] for i in sorted(picked)]


def select(
    question_set: QuestionSet,
    *,
    types: Iterable[str] | None = None,
    sample_size: int | None = None,
    seed: int = 0,
    limit: int | None = None,
) -> list[EvalQuestion]:
    """Type filter, then fixed-seed sample, then the first `limit` questions."""
    chosen = sample(filter_types(question_set.questions, types), sample_size, seed)
    return chosen[:limit] if limit is not None else chosen
