"""The encyclopedia-style test corpus (tests/data/encyclopedia): titled passages with given facts, as snapshot rows
for in-memory experiments and as a Neo4j graph (Document, Chunk, Entity, MENTIONS with `title`, typed facts).

Titles are the entity dictionary: each passage links to the entity it is about with a title MENTIONS; the other
mentions are found by scanning the text for known names and aliases (a gazetteer, longest first).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.core.names import token_form
from graphwire.retrieval.ppr.snapshot import EntityRow, GraphSnapshot, MentionRow, RelationRow, build_snapshot

CORPUS_DIR = Path(__file__).resolve().parents[1] / "data" / "encyclopedia"
CORPUS_PATH = CORPUS_DIR / "corpus.json"
SCHEMA_PATH = CORPUS_DIR / "schema.yaml"


@dataclass(frozen=True)
class Passage:
    chunk_id: str
    title: str
    text: str
    title_key: str


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answer: str
    gold_chunk_ids: tuple[str, ...]


@dataclass
class EncyclopediaCorpus:
    entities: list[EntityRow]
    passages: list[Passage]
    mentions: list[MentionRow]
    relations: list[RelationRow]
    questions: list[Question]

    def snapshot(self) -> GraphSnapshot:
        return build_snapshot(self.entities, self.mentions, self.relations, fingerprint="encyclopedia")

    def chunk_text(self) -> dict[str, str]:
        return {p.chunk_id: p.text for p in self.passages}


def entity_key(label: str, name: str) -> str:
    return f"{label}:{token_form(name)}"


def chunk_id(title: str) -> str:
    return "enc-" + re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def _resolver(entities: list[dict[str, Any]]) -> tuple[dict[str, str], dict[str, EntityRow]]:
    by_ref: dict[str, str] = {}
    rows: dict[str, EntityRow] = {}
    for e in entities:
        key = entity_key(e["label"], e["name"])
        rows[key] = EntityRow(key, e["name"], e["label"], tuple([e["name"], *e.get("aliases", [])]))
        by_ref[f"{e['name']}|{e['label']}"] = key
        by_ref.setdefault(e["name"], key)  # a bare name means its first entity; shared names use Name|Label
    return by_ref, rows


def _scan_mentions(text: str, surfaces: list[tuple[str, str]], own: EntityRow) -> dict[str, int]:
    """Entity key -> occurrences in the text; the passage's own title entity wins for its own surface forms."""
    found: dict[str, int] = {}
    taken: list[tuple[int, int]] = []
    own_forms = {token_form(s) for s in own.aliases}
    for surface, key in surfaces:
        for m in re.finditer(r"(?<!\w)" + re.escape(surface) + r"(?!\w)", text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            target = own.key if token_form(surface) in own_forms else key
            found[target] = found.get(target, 0) + 1
    return found


@cache
def load_corpus(path: Path = CORPUS_PATH) -> EncyclopediaCorpus:
    raw = json.loads(path.read_text(encoding="utf-8"))
    by_ref, entity_rows = _resolver(raw["entities"])
    surfaces = sorted(
        ((alias, key) for key, row in entity_rows.items() for alias in row.aliases), key=lambda s: -len(s[0])
    )
    passages: list[Passage] = []
    mentions: list[MentionRow] = []
    support: dict[tuple[str, str, str], list[str]] = {}
    for p in raw["passages"]:
        cid = chunk_id(p["title"])
        own = entity_rows[by_ref[p["entity"]]]
        passages.append(Passage(cid, p["title"], p["text"], own.key))
        counts = _scan_mentions(p["text"], surfaces, own)
        counts.setdefault(own.key, 1)
        mentions.extend(MentionRow(cid, key, n, key == own.key) for key, n in counts.items())
        for subj, rel, obj in p["facts"]:
            support.setdefault((by_ref[subj], rel, by_ref[obj]), []).append(cid)
            for key in (by_ref[subj], by_ref[obj]):  # an extracted fact's entities are mentioned by its chunk
                if key not in counts:
                    counts[key] = 1
                    mentions.append(MentionRow(cid, key, 1, False))
    relations = [RelationRow(s, t, o, tuple(cids)) for (s, t, o), cids in support.items()]
    title_to_chunk = {p.title: p.chunk_id for p in passages}
    questions = [
        Question(q["id"], q["question"], q["answer"], tuple(title_to_chunk[t] for t in q["gold"]))
        for q in raw["questions"]
    ]
    return EncyclopediaCorpus(list(entity_rows.values()), passages, mentions, relations, questions)


def write_to_graph(graph: Graph, corpus: EncyclopediaCorpus | None = None) -> EncyclopediaCorpus:
    """Write the corpus into an (emptied) graph with support/cypher/fixture/ (a graph built on TEST_CATALOGUE)."""
    corpus = corpus or load_corpus()
    graph.write_batches(
        "fixture/passages",
        [
            {
                "document_id": p.chunk_id,
                "chunk_id": p.chunk_id,
                "title": p.title,
                "text": p.text,
                "source": "Encyclopedia",
            }
            for p in corpus.passages
        ],
    )
    graph.write_batches(
        "fixture/entities",
        [
            {"key": e.key, "name": e.name, "label": e.label, "aliases": list(e.aliases), "norm": token_form(e.name)}
            for e in corpus.entities
        ],
    )
    graph.write_batches(
        "fixture/mentions",
        [
            {"chunk_id": m.chunk_id, "entity_key": m.entity_key, "count": m.weight, "title": m.is_title}
            for m in corpus.mentions
        ],
    )
    graph.write_batches(
        "fixture/relations",
        [
            {
                "source_key": r.source_key,
                "type": r.type,
                "target_key": r.target_key,
                "chunk_ids": list(r.chunk_ids),
                "evidence": [],
            }
            for r in corpus.relations
        ],
    )
    return corpus
