"""Question and corpus files: loading with clear errors (the records are `eval.questions`, subsets and sampling
`eval.selection`).

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

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from graphwire.core.paths import shared_data_dir
from graphwire.eval.questions import (
    FORMATS,
    MULTIHOP_FORMAT,
    NULL_TYPE,
    NULL_TYPES,
    TITLES_FORMAT,
    CorpusArticle,
    DatasetError,
    Evidence,
    Question,
    QuestionSet,
    SupportingFact,
    TitleQuestion,
)

DEFAULT_DATA_DIR = shared_data_dir()
DEFAULT_QUESTIONS = DEFAULT_DATA_DIR / "multihop-rag" / "MultiHopRAG.json"
DEFAULT_CORPUS = DEFAULT_DATA_DIR / "multihop-rag" / "corpus.json"
SAMPLE_200 = DEFAULT_DATA_DIR / "cs564-sample-queries.json"


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
