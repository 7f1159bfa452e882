"""The offline extractor: spaCy NER (plus an entity ruler for outlets, charges and awards) and relation patterns.

Deterministic, no network. Only relations a sentence states plainly (see `patterns.py`) are emitted, each with the
sentence as evidence. What it knows about a domain (patterns, NER label mapping, head words, stop names) is schema
data: the schema it is given, else the configured one (`SCHEMA_PATH`).
"""

from __future__ import annotations

import math
import multiprocessing
import re
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from graphwire.core.documents import Chunk, strip_prefix
from graphwire.core.names import clean_surface, normalise_name
from graphwire.core.nlp import load_spacy
from graphwire.core.sentences import sentence_of, sentence_starts
from graphwire.ingest.entity_layer import add_title_entities
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.extractors.patterns import ENT, RelationPattern, compile_patterns
from graphwire.ingest.gazetteer import Gazetteer
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction
from graphwire.schema.model import GraphSchema

MAX_GAP_CHARS = 120
_SAME_LENGTH_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_HAS_UPPER_OR_DIGIT = re.compile(r"[A-Z0-9]")


@dataclass(frozen=True)
class ExtractionVocabulary:
    """The schema's extraction data, compiled once per extractor (see docs/graph-model.md, "Schema files")."""

    patterns: tuple[RelationPattern, ...]
    # spaCy's labels -> schema labels. Entity-ruler labels that are schema labels (Publication, LegalCharge, Award,
    # and whatever a gazetteer for another schema uses) pass through as they are.
    ner_labels: dict[str, str]
    relation_only: frozenset[str]  # entities only worth keeping when a relation uses them
    keep_article: frozenset[str]  # labels whose names keep a leading "the"
    lowercase: frozenset[str]  # labels whose names need no capital or digit
    max_words: dict[str, int]  # label -> most words a NER name of it may have
    no_digits: frozenset[str]  # labels whose NER names have no digits
    stop_names: frozenset[str]
    strip_suffix: dict[str, re.Pattern[str]]  # label -> what NER glues to its names ("Brightwater Bank CFO")
    relabel: tuple[tuple[str, frozenset[str], frozenset[str]], ...]  # (label, from labels, head words), in order
    supersedes: dict[str, frozenset[str]]  # a stronger claim between the same pair replaces the weaker one

    @classmethod
    def of(cls, schema: GraphSchema) -> ExtractionVocabulary:
        rules = schema.label_rules
        return cls(
            patterns=_schema_patterns(schema),
            ner_labels=schema.ner_labels,
            relation_only=frozenset(label for label, r in rules.items() if r.relation_only),
            keep_article=frozenset(label for label, r in rules.items() if r.keep_article),
            lowercase=frozenset(label for label, r in rules.items() if r.lowercase_names),
            max_words={label: r.max_words for label, r in rules.items() if r.max_words is not None},
            no_digits=frozenset(label for label, r in rules.items() if r.no_digits),
            stop_names=frozenset(name.lower() for name in schema.extraction.stop_names),
            strip_suffix={label: re.compile(r.strip_suffix) for label, r in rules.items() if r.strip_suffix},
            relabel=tuple(
                (label, frozenset(r.relabel_from), frozenset(w.lower() for w in r.head_words))
                for label, r in rules.items()
                if r.head_words and r.relabel_from
            ),
            supersedes={t: frozenset(r.supersedes) for t, r in schema.relation_rules.items() if r.supersedes},
        )


_COMPILED: dict[int, tuple[GraphSchema, tuple[RelationPattern, ...]]] = {}


def _schema_patterns(schema: GraphSchema) -> tuple[RelationPattern, ...]:
    """The schema's compiled surface patterns (compiled once per loaded schema)."""
    cached = _COMPILED.get(id(schema))
    if cached is None or cached[0] is not schema:
        cached = _COMPILED[id(schema)] = (schema, compile_patterns(schema))
    return cached[1]


# Between the subject and the rest: an appositive (", the former CEO of FTX,") the pattern may skip over.
_APPOSITIVE = re.compile(r"^,[^,;.\x00]{0,60}(?:\x00[^,;.\x00]{0,30})?,(?=\s)")


@dataclass
class _Mention:
    start: int  # char offsets within the sentence
    end: int
    name: str
    surface: str
    label: str
    sentence: int = 0  # index in `sentence_starts` of the extracted text


def load_nlp(gazetteer: Gazetteer) -> Any:
    """NER-only spaCy with an entity ruler before `ner` and a rule-based sentencizer (no parser: speed)."""
    nlp = load_spacy()
    ruler: Any = nlp.add_pipe("entity_ruler", before="ner", config={"phrase_matcher_attr": "ORTH"})
    ruler.add_patterns(gazetteer.ruler_patterns())
    if len(ruler):
        # EntityRuler re-counts all its patterns on every document to warn when it has none: with a gazetteer of
        # thousands of names that was a fifth of extraction time. It has patterns; skip the check.
        ruler._require_patterns = lambda: None
    nlp.add_pipe("sentencizer", first=True)
    return nlp


class OfflineExtractor:
    name = "offline"
    version = "1"

    def __init__(
        self,
        schema: GraphSchema,
        gazetteer: Gazetteer | None = None,
        batch_size: int = 64,
        n_process: int = 1,
        patterns: Sequence[RelationPattern] | None = None,
        in_process_chunks: int = 1000,
        title_entities: bool = True,
        allowed_labels: Iterable[str] | None = None,
    ) -> None:
        """`schema`: where the labels, patterns, NER mapping and name rules come from; `allowed_labels`: the labels
        to keep (default: all of the schema's). `n_process` > 1: worker processes extract once a run has done its
        first `in_process_chunks` chunks here (a small corpus never waits for workers to load spaCy)."""
        self.schema = schema
        self.vocabulary = ExtractionVocabulary.of(self.schema)
        self.allowed_labels = frozenset(schema.labels if allowed_labels is None else allowed_labels)
        self.gazetteer = gazetteer or Gazetteer.from_sources([], schema=self.schema)
        self.batch_size = batch_size
        self.n_process = n_process
        self.patterns = tuple(patterns) if patterns is not None else self.vocabulary.patterns
        self._nlp: Any = None
        self._pool: ProcessPoolExecutor | None = None
        self._chunks_seen = 0
        self.in_process_chunks = in_process_chunks
        self.title_entities = title_entities  # ingest/entity_layer.py (off only to measure what it adds)

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_nlp(self.gazetteer)
        return self._nlp

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        self._chunks_seen += len(chunks)
        if self.n_process > 1 and len(chunks) > 1 and self._chunks_seen > self.in_process_chunks:
            results = self._extract_in_workers(chunks)
        else:
            results = self.extract_chunks(chunks)
        if self.title_entities:
            add_title_entities(chunks, results, self.title_label)
        return results

    @property
    def title_label(self) -> str:
        """The label of a title entity the tagger did not label: the schema's `title_label`, else its first label."""
        configured = getattr(self.schema, "title_label", None)
        if configured in self.allowed_labels:
            return str(configured)
        ordered = [label for label in getattr(self.schema, "labels", []) if label in self.allowed_labels]
        return ordered[0] if ordered else sorted(self.allowed_labels)[0]

    def extract_chunks(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        """Each chunk on its own, in this process (no document-level step)."""
        texts = (extraction_text(c) for c in chunks)
        docs = self.nlp.pipe(texts, batch_size=self.batch_size)
        results: list[Extraction | ExtractionFailure] = []
        for chunk, doc in zip(chunks, docs, strict=True):
            try:
                results.append(self._extract_doc(chunk.id, doc, title_chars(chunk)))
            except Exception as exc:  # one odd chunk must not stop a run
                results.append(ExtractionFailure(chunk.id, f"{type(exc).__name__}: {exc}"))
        return results

    def _extract_in_workers(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        """Split the chunks over `n_process` worker processes that load spaCy once and live as long as the extractor
        (spaCy's own `n_process` starts new processes on every call, i.e. on every batch)."""
        if self._pool is None:
            patterns = None if self.patterns is self.vocabulary.patterns else self.patterns
            self._pool = ProcessPoolExecutor(
                max_workers=self.n_process,
                mp_context=multiprocessing.get_context("spawn"),  # the caller has threads (writer, driver): no fork
                initializer=_start_worker,
                initargs=(self.allowed_labels, self.gazetteer, self.batch_size, patterns, self.schema),
            )
        size = math.ceil(len(chunks) / self.n_process)
        parts = [list(chunks[start : start + size]) for start in range(0, len(chunks), size)]
        return [result for part in self._pool.map(_extract_in_worker, parts) for result in part]

    def close(self) -> None:
        """Stop the worker processes, if any."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def extract_text(self, text: str, chunk_id: str = "text") -> Extraction:
        """Extract from plain text (tests, debugging)."""
        return self._extract_doc(chunk_id, self.nlp(text.translate(_SAME_LENGTH_QUOTES)))

    def _extract_doc(self, chunk_id: str, doc: Any, headline_chars: int = 0) -> Extraction:
        """Entities from every sentence; relations only from body sentences (headlines are too terse to trust)."""
        entities: dict[tuple[str, str], ExtractedEntity] = {}
        relations: dict[tuple[str, str, str, str, str], ExtractedRelation] = {}
        starts = sentence_starts(doc.text)
        for sent in doc.sents:
            mentions = self._mentions(sent, starts)
            for m in mentions:
                _add_entity(entities, m)
            if sent.start_char < headline_chars:
                continue
            for rel in self._relations(sent.text, mentions):
                relations.setdefault((rel.source, rel.source_label, rel.type, rel.target, rel.target_label), rel)
        _retype_coerced(entities, relations.values())
        used = {(r.source, r.source_label) for r in relations.values()} | {
            (r.target, r.target_label) for r in relations.values()
        }
        relation_only = self.vocabulary.relation_only
        kept = [e for k, e in entities.items() if e.label not in relation_only or k in used]
        return Extraction(chunk_id=chunk_id, entities=kept, relations=list(relations.values()), extractor=self.name)

    def _mentions(self, sent: Any, starts: list[int]) -> list[_Mention]:
        out = []
        vocab = self.vocabulary
        for ent in sent.ents:
            label = vocab.ner_labels.get(ent.label_, ent.label_)
            if label not in self.allowed_labels:
                continue
            surface = clean_surface(ent.text)
            if label not in vocab.keep_article:
                surface = re.sub(r"^the\s+", "", surface)
            if label in vocab.strip_suffix and not ent.ent_id_:
                surface = vocab.strip_suffix[label].sub("", surface)
            if not ent.ent_id_ and not _plausible_name(surface, label, vocab):
                continue
            label = _relabel(surface, label, vocab) if not ent.ent_id_ else label
            name = ent.ent_id_ or surface
            start, end = ent.start_char - sent.start_char, ent.end_char - sent.start_char
            out.append(_Mention(start, end, name, surface, label, sentence_of(starts, ent.start_char)))
        return out

    def _relations(self, text: str, mentions: list[_Mention]) -> list[ExtractedRelation]:
        found = []
        for i, first in enumerate(mentions):
            for j in range(i + 1, len(mentions)):
                second = mentions[j]
                if second.start - first.end > MAX_GAP_CHARS:
                    break
                between = _masked_between(text, mentions, i, j)
                after = text[second.end :]
                pair = [r for p in self.patterns if (r := _apply(p, first, second, between, after, text)) is not None]
                weaker = {w for r in pair for w in self.vocabulary.supersedes.get(r.type, ())}
                found += [r for r in pair if r.type not in weaker]
        return found


def extraction_text(chunk: Chunk) -> str:
    """What the extractor reads: the chunk body (the title too for a document's first chunk), same-length quotes."""
    body = strip_prefix(chunk.text)
    text = f"{chunk.title}.\n{body}" if chunk.index == 0 else body
    return text.translate(_SAME_LENGTH_QUOTES)


def title_chars(chunk: Chunk) -> int:
    """How many leading characters of `extraction_text(chunk)` are the headline."""
    return len(chunk.title) + 1 if chunk.index == 0 else 0


def _masked_between(text: str, mentions: list[_Mention], i: int, j: int) -> str:
    start, end = mentions[i].end, mentions[j].start
    pieces, cursor = [], start
    for m in mentions[i + 1 : j]:
        pieces.append(text[cursor : m.start])
        pieces.append(ENT)
        cursor = m.end
    pieces.append(text[cursor:end])
    return "".join(pieces)


def _apply(
    pattern: RelationPattern, first: _Mention, second: _Mention, between: str, after: str, sentence: str
) -> ExtractedRelation | None:
    if not pattern.applies(first.label, second.label):
        return None
    if not pattern.between.fullmatch(between):
        appositive = None if pattern.reverse else _APPOSITIVE.match(between)
        if appositive is None or not pattern.between.fullmatch(between[appositive.end() :]):
            return None
    if pattern.after_not is not None and pattern.after_not.match(after):
        return None
    if pattern.after_must is not None and not pattern.after_must.match(after):
        return None
    subject, obj = (second, first) if pattern.reverse else (first, second)
    if not pattern.subject_check(subject.name):
        return None
    if normalise_name(subject.name) == normalise_name(obj.name):
        return None
    return ExtractedRelation(
        source=subject.name,
        source_label=subject.label,
        type=pattern.type,
        target=obj.name,
        target_label=pattern.coerce_object if pattern.coerce_object and pattern.coerces(obj.label) else obj.label,
        evidence=sentence.strip(),
    )


def _retype_coerced(entities: dict[tuple[str, str], ExtractedEntity], relations: Iterable[ExtractedRelation]) -> None:
    """A pattern that retyped its object ("the CEO of Alameda": Organization) retypes the chunk's mention too."""
    for rel in relations:
        key = (rel.target, rel.target_label)
        if key in entities:
            continue
        wrong = [k for k in entities if k[0] == rel.target and k[1] != rel.target_label]
        for old in wrong:
            entity = entities.pop(old)
            entities[key] = entity.model_copy(update={"label": rel.target_label})


def _add_entity(entities: dict[tuple[str, str], ExtractedEntity], m: _Mention) -> None:
    key = (m.name, m.label)
    entity = entities.get(key)
    if entity is None:
        entities[key] = ExtractedEntity(
            name=m.name, label=m.label, aliases=[m.surface], mentions=1, sentences=[m.sentence]
        )
        return
    entity.mentions += 1
    if m.sentence not in entity.sentences:
        entity.sentences.append(m.sentence)
    if m.surface not in entity.aliases:
        entity.aliases.append(m.surface)


def _relabel(surface: str, label: str, vocab: ExtractionVocabulary) -> str:
    """Fix spaCy's commonest confusions from the name's last word ("Lumen Labs" is an organisation)."""
    if len(surface.split()) < 2:
        return label
    last = surface.split()[-1].lower()
    for head_label, from_labels, head_words in vocab.relabel:
        if label in from_labels and last in head_words:
            return head_label
    return label


def _plausible_name(surface: str, label: str, vocab: ExtractionVocabulary) -> bool:
    if len(surface) < 2 or len(surface) > 80 or "\n" in surface:
        return False
    if not _HAS_UPPER_OR_DIGIT.search(surface) and label not in vocab.lowercase:
        return False
    if surface.lower() in vocab.stop_names or not any(ch.isalpha() for ch in surface):
        return False
    if len(surface.split()) > vocab.max_words.get(label, len(surface.split())):
        return False
    return not (label in vocab.no_digits and any(ch.isdigit() for ch in surface))


_WORKER: OfflineExtractor | None = None  # the extractor of an extraction worker process


def _start_worker(
    labels: frozenset[str],
    gazetteer: Gazetteer,
    batch_size: int,
    patterns: Sequence[RelationPattern] | None,
    schema: GraphSchema,
) -> None:
    global _WORKER
    _WORKER = OfflineExtractor(schema, gazetteer, batch_size, n_process=1, patterns=patterns, allowed_labels=labels)
    _WORKER.nlp  # noqa: B018  (load the model once, before the first batch)


def _extract_in_worker(chunks: list[Chunk]) -> list[Extraction | ExtractionFailure]:
    if _WORKER is None:
        raise RuntimeError("extraction worker used before it was started")
    return _WORKER.extract_chunks(chunks)
