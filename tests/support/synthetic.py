"""A synthetic news graph written straight through the project's writer (no extraction): Zipf-distributed entity
popularity (a few hubs mentioned by a large share of the chunks, a long tail), two busy outlets, a date layer.

Used by the Cypher determinism test (small) and by bench/cypher_profile.py (50,000 articles). Same spec and seed,
same rows; `shuffled` gives the same rows in another order, to write an equal graph in a different order."""

from __future__ import annotations

import bisect
import hashlib
import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from graphwire.core.names import entity_key, label_norm
from graphwire.ingest.entity_lookup import lookup_properties
from graphwire.ingest.rows import GraphRows
from graphwire.schema.model import load_schema

ROLES = load_schema().roles  # the news schema's
PUBLICATION, REPORTED_BY = ROLES.publisher_label, ROLES.reported_by_type

LABELS = ("Person", "Organization", "Location", "Product")
TYPES = ("WORKS_FOR", "SUPPLIES", "OWNS", "INVESTED_IN", "COMPETES_WITH", "LOCATED_IN", "SUED")
SYLLABLES = ("ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "xe", "za", "bo", "di", "fe", "gu", "hi")
START = date(2023, 1, 1)


@dataclass(frozen=True)
class SyntheticSpec:
    documents: int = 50_000
    chunks_per_document: int = 2
    entities: int = 20_000
    publications: int = 10
    days: int = 730
    mentions_per_chunk: int = 4
    relations_per_chunk: int = 2
    zipf: float = 1.1  # entity popularity exponent
    seed: int = 13
    provenance_cap: int = 100  # REPORTED_BY keeps the smallest implied chunk ids, as ingest does (PROVENANCE_CAP)


def entity_name(i: int) -> tuple[str, str]:
    """A pronounceable two-word name for entity i (unique up to 65,536 entities) and its label."""
    digits = [(i >> shift) & 15 for shift in (12, 8, 4, 0)]
    first = (SYLLABLES[digits[0]] + SYLLABLES[digits[1]]).capitalize()
    second = (SYLLABLES[digits[2]] + SYLLABLES[digits[3]]).capitalize()
    return f"{first} {second}", LABELS[i % len(LABELS)]


def entity_key_of(i: int) -> str:
    name, label = entity_name(i)
    return entity_key(label, name, ROLES)


def publication_name(p: int) -> str:
    return f"Outlet {SYLLABLES[p % 16].capitalize()}"


def build(spec: SyntheticSpec) -> GraphRows:
    rng = random.Random(spec.seed)
    cumulative, total = _cumulative(spec)
    rows = GraphRows()
    publications = [publication_name(p) for p in range(spec.publications)]
    pub_keys = [entity_key(PUBLICATION, name, ROLES) for name in publications]
    rows.entities.extend(_entity_row(name, PUBLICATION) for name in publications)
    used: set[int] = set()
    relations: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    days: set[date] = set()
    for d in range(spec.documents):
        pub = rng.randrange(spec.publications) if rng.random() < 0.9 else d % 2  # two busy outlets
        day = START + timedelta(days=rng.randrange(spec.days))
        days.add(day)
        doc_id = _id("doc", d)
        rows.documents.new.append({"id": doc_id, "title": f"Article {d}", "source": publications[pub],
                                   "url": f"https://example.org/{d}", "author": None, "category": "news",
                                   "published_at": day.isoformat(), "date": day.isoformat(),
                                   "publication": pub_keys[pub]})  # fmt: skip
        for c in range(spec.chunks_per_document):
            chunk = chunk_id(d, c)
            picked = sorted(
                {bisect.bisect_left(cumulative, rng.random() * total) for _ in range(spec.mentions_per_chunk)}
            )
            used.update(picked)
            keys = [entity_key_of(i) for i in picked]
            text = f"Article {d}, part {c}: " + ", ".join(entity_name(i)[0] for i in picked) + " were in the news."
            rows.chunks.new.append({"id": chunk, "document_id": doc_id, "index": c, "text": text,
                                    "title": f"Article {d}", "source": publications[pub],
                                    "published_at": day.isoformat()})  # fmt: skip
            for key in keys:
                rows.mentions.new.append({"chunk_id": chunk, "key": key, "count": 1 + rng.randrange(3),
                                          "title": False, "sentences": [0]})  # fmt: skip
                relations[(key, REPORTED_BY, pub_keys[pub])].append(chunk)
            for _ in range(spec.relations_per_chunk if len(keys) > 1 else 0):
                a, b = rng.sample(keys, 2)
                relations[(a, TYPES[rng.randrange(len(TYPES))], b)].append(chunk)
    rows.entities.extend(_entity_row(*entity_name(i)) for i in sorted(used))
    rows.days = _days(sorted(days))
    for (s, t, o), chunk_ids in relations.items():
        if t == REPORTED_BY:
            chunk_ids = sorted(chunk_ids)[: spec.provenance_cap]
        evidence = None if t == REPORTED_BY else [f"{s} {t} {o}." for _ in chunk_ids]
        rows.relations.new.append({"source": s, "type": t, "target": o, "chunk_ids": chunk_ids,
                                   "evidence": evidence, "extractor": "synthetic"})  # fmt: skip
    return rows


def shuffled(rows: GraphRows, seed: int) -> GraphRows:
    """The same rows, each list in another order (days stay sorted: each links to its neighbours)."""
    rng = random.Random(seed)
    out = GraphRows(days=list(rows.days), entities=rng.sample(rows.entities, len(rows.entities)))
    for part in ("documents", "chunks", "mentions", "relations"):
        source = getattr(rows, part).new
        getattr(out, part).new = rng.sample(source, len(source))
    return out


def done_rows(rows: GraphRows, chunks_per_document: int) -> list[dict[str, Any]]:
    return [
        {"id": d["id"], "content_hash": "synthetic", "chunk_count": chunks_per_document} for d in rows.documents.new
    ]


def _cumulative(spec: SyntheticSpec) -> tuple[list[float], float]:
    cumulative, total = [], 0.0
    for i in range(spec.entities):
        total += 1.0 / (i + 1) ** spec.zipf
        cumulative.append(total)
    return cumulative, total


def _entity_row(name: str, label: str) -> dict[str, Any]:
    norm = label_norm(name, label, ROLES)
    return {"key": entity_key(label, name, ROLES), "label": label, "name": name, "norm": norm, "aliases": [name],
            **lookup_properties(label, name, norm, [name], ROLES)}  # fmt: skip


def _days(days: list[date]) -> list[dict[str, Any]]:
    return [_day(d) for d in days]


def _day(d: date) -> dict[str, Any]:
    previous, following = (d - timedelta(days=1)).isoformat(), (d + timedelta(days=1)).isoformat()
    return {"date": d.isoformat(), "year": d.year, "month": d.month, "day": d.day, "prev": previous, "next": following}


def chunk_id(document: int, index: int) -> str:
    """The id of chunk `index` of synthetic document `document`."""
    return _id("chunk", document, index)


def _id(*parts: object) -> str:
    return hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()[:24]


__all__ = ["SyntheticSpec", "build", "chunk_id", "done_rows", "entity_key_of", "entity_name", "shuffled"]
