"""Link the corpus's own names wherever they occur: the dictionary pass of the entity layer.

A tagger misses names (film titles, lower-profile people) and tags a name in one chunk but not in the next. Once a run
has written its entities, every chunk not yet linked is scanned for the names and aliases of all entities the graph
holds, longest match first, and gains a MENTIONS edge (`linked: true`, with the sentences that name it) for each one
the tagger did not give it. Generic words are never linked on their own: those in `schema/lexicon/generic_words.txt`,
and one-word names the scanned text itself writes in lower case at least twice as often as capitalised ("Death",
"Series"). A chunk is marked `linked` once its rows are written, so a run killed here is finished by the next one.

Only the entities the scanned text can name are read: those whose normalised name or alias equals one of its word
spans (up to MAX_SPAN_WORDS words, ingest/entity_lookup.py), unless the spans could outnumber the graph's entities
(a first ingest), when reading them all is the cheaper way.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Chunk
from graphwire.core.names import normalise_name
from graphwire.core.sentences import sentence_of, sentence_starts
from graphwire.ingest.curation.rules import CurationRules
from graphwire.ingest.entity_lookup import StoredEntities
from graphwire.ingest.extractors.offline import extraction_text
from graphwire.ingest.rows import Row
from graphwire.schema.lexicon import generic_words, written_as_word

MAX_SPAN_WORDS = 8
MIN_NAME_CHARS = 3
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


@dataclass
class Dictionary:
    """Normalised surface (words joined by a space) -> entity keys."""

    keys: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    _longest: dict[str, int] = field(default_factory=dict)  # first word -> most words of a surface it starts

    def longest_from(self, word: str) -> int:
        if not self._longest and self.keys:
            for norm in self.keys:
                first, size = norm.split(" ", 1)[0], norm.count(" ") + 1
                self._longest[first] = max(self._longest.get(first, 0), size)
        return self._longest.get(word, 0)

    @classmethod
    def of(cls, entities: Iterable[Row]) -> Dictionary:
        out = cls()
        for row in entities:
            for surface in {row["name"], *(row.get("aliases") or [])}:
                norm = normalise_name(str(surface))
                if len(norm) >= MIN_NAME_CHARS and not norm.isdigit() and row["key"] not in out.keys[norm]:
                    out.keys[norm].append(str(row["key"]))
        return out

    def without_generic(self, words: Counter[str], capitalised: Counter[str]) -> Dictionary:
        generic = generic_words()
        out = Dictionary()
        for norm, keys in self.keys.items():
            if " " not in norm and (norm in generic or written_as_word(words[norm], capitalised[norm])):
                continue
            out.keys[norm] = keys
        return out


@dataclass
class LinkReport:
    chunks_scanned: int = 0
    mentions_linked: int = 0


def _tokens(text: str) -> list[tuple[str, int, bool]]:
    """(normalised word, offset, capitalised) for every word of the text."""
    out = []
    for match in _WORD.finditer(text):
        norm = normalise_name(match.group())
        if norm:
            out.append((norm, match.start(), match.group()[:1].isupper()))
    return out


def find_names(
    text: str,
    dictionary: Dictionary,
    tokens: list[tuple[str, int, bool]] | None = None,
    spans: dict[str, set[str]] | None = None,
) -> dict[str, set[int]]:
    """Entity key -> sentence indices, for the dictionary's names in `text`, longest match first, no overlaps;
    `spans`, when given, gets each key's matched names (normalised)."""
    tokens = _tokens(text) if tokens is None else tokens
    starts = sentence_starts(text)
    found: dict[str, set[int]] = defaultdict(set)
    i = 0
    while i < len(tokens):
        longest = min(dictionary.longest_from(tokens[i][0]), MAX_SPAN_WORDS, len(tokens) - i)
        for size in range(longest, 0, -1):
            span = " ".join(t[0] for t in tokens[i : i + size])
            keys = dictionary.keys.get(span)
            if keys:
                sentence = sentence_of(starts, tokens[i][1])
                for key in keys:
                    found[key].add(sentence)
                    if spans is not None:
                        spans.setdefault(key, set()).add(span)
                i += size
                break
        else:
            i += 1
    return found


def _chunk_of(row: Row) -> Chunk:
    return Chunk(id=row["id"], document_id="", index=int(row["index"] or 0), text=row["text"] or "",
                 title=row["title"] or "")  # fmt: skip


def word_spans(tokens: Iterable[list[tuple[str, int, bool]]]) -> set[str]:
    """Every run of 1 to MAX_SPAN_WORDS words of the texts, as `find_names` compares them to the dictionary."""
    spans: set[str] = set()
    for words in tokens:
        norms = [norm for norm, _, _ in words]
        for i in range(len(norms)):
            for size in range(1, min(MAX_SPAN_WORDS, len(norms) - i) + 1):
                span = " ".join(norms[i : i + size])
                if len(span) >= MIN_NAME_CHARS and not span.isdigit():
                    spans.add(span)
    return spans


class DictionaryLinker:
    """`rules`: the curation rules a link is held to (a split namesake's name links to the entity its document's
    mentions belong to; a deleted entity's names link nowhere)."""

    def __init__(
        self,
        graph: Graph,
        batch_size: int = 10_000,
        stored: StoredEntities | None = None,
        rules: CurationRules | None = None,
    ) -> None:
        self.graph = graph
        self.batch_size = batch_size
        self.stored = stored or StoredEntities(graph)
        self.rules = rules

    def run(self) -> LinkReport:
        rows = self.graph.read("ingest/unlinked_chunks")
        report = LinkReport(chunks_scanned=len(rows))
        if not rows:
            return report
        texts = [(row["id"], extraction_text(_chunk_of(row))) for row in rows]
        document_of = {row["id"]: row["document_id"] for row in rows}
        tokens = [_tokens(text) for _, text in texts]
        lower, upper = Counter[str](), Counter[str]()
        for words in tokens:
            for norm, _, capitalised in words:
                (upper if capitalised else lower)[norm] += 1
        dictionary = Dictionary.of(self._entities(tokens)).without_generic(lower, upper)
        links: list[Row] = []
        for (chunk_id, text), words in zip(texts, tokens, strict=True):
            spans: dict[str, set[str]] = {}
            for found, sentences in find_names(text, dictionary, words, spans).items():
                key = found if self.rules is None else self.rules.entity(found, chunk_id, document_of[chunk_id])
                if key is not None:
                    names = sorted(spans[found]) if key == found else []  # a rule's entity: no name taught
                    links.append({"chunk_id": chunk_id, "key": key, "count": len(sentences),
                                  "sentences": sorted(sentences), "names": names})  # fmt: skip
        self._write(links, [chunk_id for chunk_id, _ in texts])
        report.mentions_linked = len(links)
        return report

    def _entities(self, tokens: list[list[tuple[str, int, bool]]]) -> list[Row]:
        """The entities the texts may name; all of them when the texts have more spans than the graph entities."""
        most_spans = sum(len(words) for words in tokens) * MAX_SPAN_WORDS
        if most_spans >= self.stored.count():
            return self.stored.all()
        return self.stored.by_surfaces(word_spans(tokens))

    def _write(self, links: Sequence[Row], chunk_ids: Sequence[str]) -> None:
        if links:
            self.graph.write_batches("ingest/link_mentions", list(links), self.batch_size, 1)
        marks = [{"id": chunk_id} for chunk_id in chunk_ids]
        self.graph.write_batches("ingest/mark_chunks_linked", marks, self.batch_size, 1)
