"""The document's own entity: where a title names what its document is about, that title is an entity of every chunk.

Encyclopedia pages, catalogue entries and people pages open by naming their subject ("Qvwm is a window manager ...",
"Richard Leonard Kuklinski (1935-2006) was ..."); news headlines do not. The decision is made per document from its
text: the title, less a trailing qualifier such as "(film)", must appear word by word, in order, at the start of the
body. Such a title becomes an entity (name: the title, alias: the title without its qualifier), mentioned with
`title` set by every chunk of the document; a tagger's mention of the same name in that document is folded into it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from graphwire.core.documents import Chunk, strip_prefix
from graphwire.core.names import normalise_name, title_core
from graphwire.ingest.models import ExtractedEntity, Extraction

OPENING_CHARS = 250  # how far into the body the title's words must all appear


def _in_order(words: list[str], opening: list[str]) -> bool:
    rest = iter(opening)
    return bool(words) and all(word in rest for word in words)


def names_its_document(title: str, body: str) -> bool:
    """The title (or, for "Place, Region" titles, its first part) opens the body, word by word and in order."""
    opening = normalise_name(body[:OPENING_CHARS]).split()
    core = title_core(title)
    if _in_order(normalise_name(core).split(), opening):
        return True
    head = core.split(",", 1)[0]
    return head != core and _in_order(normalise_name(head).split(), opening)


def _label_for(core: str, first: Extraction | None, fallback: str) -> str:
    """The tagger's label for the subject's name in the opening chunk, else `fallback`."""
    if first is not None:
        wanted = normalise_name(core)
        for entity in first.entities:
            if normalise_name(entity.name) == wanted or any(normalise_name(a) == wanted for a in entity.aliases):
                return entity.label
    return fallback


def add_title_entities(chunks: Sequence[Chunk], extractions: Sequence[Extraction | object], fallback_label: str) -> int:
    """Give every chunk of each document whose title names it the title entity; returns how many documents had one.

    `extractions` is parallel to `chunks`; entries that are not an `Extraction` (failures) are left alone. Only
    documents whose first chunk is among `chunks` are decided (a run extracts whole documents).
    """
    by_doc: dict[str, list[tuple[Chunk, Extraction]]] = defaultdict(list)
    for chunk, extraction in zip(chunks, extractions, strict=True):
        if isinstance(extraction, Extraction):
            by_doc[chunk.document_id].append((chunk, extraction))
    titled = 0
    for pairs in by_doc.values():
        first = next((e for c, e in pairs if c.index == 0), None)
        opening = next((c for c, _ in pairs if c.index == 0), None)
        if opening is None or first is None or not names_its_document(opening.title, strip_prefix(opening.text)):
            continue
        titled += 1
        title, core = opening.title.strip(), title_core(opening.title)
        label = _label_for(core, first, fallback_label)
        same = {normalise_name(title), normalise_name(core)}
        for _, extraction in pairs:
            _fold_title(extraction, title, core, label, same)
    return titled


def _fold_title(extraction: Extraction, title: str, core: str, label: str, same: set[str]) -> None:
    kept: list[ExtractedEntity] = []
    mentions, sentences = 0, []
    for entity in extraction.entities:
        if normalise_name(entity.name) in same:
            mentions += entity.mentions
            sentences += entity.sentences
        else:
            kept.append(entity)
    aliases = [core] if core != title else []
    title_entity = ExtractedEntity(
        name=title,
        label=label,
        aliases=aliases,
        mentions=max(mentions, 1),
        title=True,
        sentences=sorted(set(sentences)),
    )
    extraction.entities = [title_entity, *kept]
    for rel in extraction.relations:  # a fact about the tagger's mention is a fact about the title entity
        if normalise_name(rel.source) in same:
            rel.source, rel.source_label = title, label
        if normalise_name(rel.target) in same:
            rel.target, rel.target_label = title, label
