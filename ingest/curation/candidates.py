"""Candidate merges for the review queue: pairs of entities whose names say they may be one (pure: no I/O).

Names are compared in one label-free form (`plain`: `normalise_name` with "the" and corporate suffixes dropped), over
each entity's name and aliases. A pair is only ever compared inside a block, never all against all:

- `name:<form>`: the same name or alias under two entities, also under two labels (a city stored as a Person);
- `acronym:<letters>`: a one-word name and the initials of a longer name of the same label ("IMF", "SBF");
- `last:<word>`: same label, same last word: a Person's surname (a bare surname, a shorter form, or a first-name
  initial; two different first names are namesakes and never proposed), or, for other labels, a similar name;
- `first:<word>`: same label (not Person), same first word, a similar name.

A block of more than `BLOCK_CAP` entities (a very common word) is skipped for the similarity rules, so the work grows
with the entities, not their square. Each proposed pair gets the strongest of its name signals (`SIGNALS`; a similar
name: rapidfuzz `ratio`/100 at least `SIMILAR_MIN`, or the word overlap |A∩B|/|A∪B| at least `OVERLAP_MIN`) and
`score` adds what the graph says: 0.7 × name strength + 0.3 × min(shared neighbours, 3)/3.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from rapidfuzz import fuzz

from graphwire.core.names import digits_of, normalise_name

BLOCK_CAP = 100  # entities in one similarity block at most; a larger block (a very common word) is skipped
SIMILAR_MIN = 0.85  # the least rapidfuzz ratio (0-1) of two names called similar
OVERLAP_MIN = 0.6  # the least word overlap (Jaccard) of two names called similar
NAME_WEIGHT, CONTEXT_WEIGHT, CONTEXT_FULL = 0.7, 0.3, 3  # score = 0.7 × name + 0.3 × min(shared, 3)/3
SIGNALS = {"same-name": 1.0, "acronym": 0.9, "initial": 0.85, "surname": 0.8}
ACRONYM_SKIP = frozenset({"of", "and", "the", "for", "de", "la", "du", "von", "van", "&"})


@dataclass(frozen=True)
class Named:
    """An entity as the queue compares it: key, schema label, display name and every label-free name form."""

    key: str
    label: str
    name: str
    forms: tuple[str, ...]  # `plain` of the name and of each alias, the name's first


@dataclass(frozen=True)
class Proposal:
    """A pair that may be one entity (`a` < `b`), its name strength (0-1) and why."""

    a: str
    b: str
    strength: float
    reasons: tuple[str, ...]


def plain(name: str) -> str:
    """The label-free form names are compared in: lower case, no accents or punctuation, no "the", no suffix."""
    return normalise_name(name, drop_the=True, drop_suffix=True)


def named(key: str, label: str, name: str, aliases: Iterable[str]) -> Named:
    forms = [f for f in dict.fromkeys([plain(name), *(plain(a) for a in aliases)]) if f]
    return Named(key, label, name, tuple(forms))


def acronym(form: str) -> str:
    """The initials of a name of two words or more ("international monetary fund" -> "imf"), else ''."""
    words = [w for w in form.split() if w not in ACRONYM_SKIP]
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


def score(strength: float, shared: int) -> float:
    """The queue's order: the name signal, and the neighbours the two share (capped at `CONTEXT_FULL`)."""
    return round(NAME_WEIGHT * strength + CONTEXT_WEIGHT * min(shared, CONTEXT_FULL) / CONTEXT_FULL, 3)


def person_signal(x: str, y: str) -> str | None:
    """How two Person names with the same last word may be one person: `surname` (one's words end the other's:
    "bankman fried" / "sam bankman fried"), `initial` ("j lee" / "jordan lee"), or None (namesakes: "ada lee" /
    "jordan lee")."""
    short, long_ = sorted((x.split(), y.split()), key=len)
    if short == long_ or short[-1] != long_[-1]:
        return None
    if long_[len(long_) - len(short) :] == short:
        return "surname"
    first, other = short[0], long_[0]
    if len(short) == len(long_) and short[1:] == long_[1:] and len(first) == 1 and other.startswith(first):
        return "initial"
    if len(short) == len(long_) and short[1:] == long_[1:] and len(other) == 1 and first.startswith(other):
        return "initial"
    return None


def similar(x: str, y: str) -> float:
    """How alike two names of another label are: the better of ratio and word overlap, 0 below both thresholds or
    when their numbers differ (iPhone 14 / iPhone 15)."""
    ratio = fuzz.ratio(x, y) / 100
    xs, ys = set(x.split()), set(y.split())
    overlap = len(xs & ys) / len(xs | ys)
    best = max(ratio if ratio >= SIMILAR_MIN else 0.0, overlap if overlap >= OVERLAP_MIN else 0.0)
    return round(best, 3) if best and digits_of(x) == digits_of(y) else 0.0


def blocks(entities: Iterable[Named], person_label: str) -> dict[str, list[Named]]:
    """Entities grouped by the keys a duplicate would share (see the module's docstring)."""
    out: dict[str, list[Named]] = defaultdict(list)
    for e in entities:
        for form in e.forms:
            out[f"name:{form}"].append(e)
        words = e.forms[0].split() if e.forms else []
        if not words:
            continue
        if len(words) == 1 and len(words[0]) >= 2 and words[0].isalpha():
            out[f"acronym:{e.label}:{words[0]}"].append(e)
        elif letters := acronym(e.forms[0]):
            out[f"acronym:{e.label}:{letters}"].append(e)
        out[f"last:{e.label}:{words[-1]}"].append(e)
        if e.label != person_label and len(words) > 1:
            out[f"first:{e.label}:{words[0]}"].append(e)
    return out


def _pairs(members: list[Named], focus: str | None) -> Iterator[tuple[Named, Named]]:
    unique = list({m.key: m for m in members}.values())
    for i, x in enumerate(unique):
        for y in unique[i + 1 :]:
            if focus is None or focus in (x.key, y.key):
                yield (x, y) if x.key < y.key else (y, x)


def _signal(block: str, x: Named, y: Named, person_label: str) -> tuple[float, str] | None:
    kind = block.split(":", 1)[0]
    if kind == "name":
        return SIGNALS["same-name"], "same-name" if x.label == y.label else f"same-name across {x.label}/{y.label}"
    fx, fy = x.forms[0], y.forms[0]
    if kind == "acronym":
        if (" " in fx) == (" " in fy):  # two acronyms or two long names sharing initials
            return None
        return SIGNALS["acronym"], f"acronym {min(fx, fy, key=len)!r}"
    if x.label == person_label:
        found = person_signal(fx, fy) if kind == "last" else None
        return (SIGNALS[found], found) if found else None
    strength = similar(fx, fy)
    return (strength, f"similar name ({strength:.2f})") if strength else None


def propose(
    entities: Iterable[Named],
    person_label: str,
    rejected: set[tuple[str, str]] | frozenset[tuple[str, str]] = frozenset(),
    focus: str | None = None,
) -> list[Proposal]:
    """Every pair a block proposes, less the `rejected` (sorted key pairs), strongest first then by keys; only pairs
    with the entity `focus` when given."""
    found: dict[tuple[str, str], tuple[float, set[str]]] = {}
    for block, members in blocks(entities, person_label).items():
        if len(members) < 2 or (len(members) > BLOCK_CAP and not block.startswith("name:")):
            continue
        if focus is not None and all(m.key != focus for m in members):
            continue
        for x, y in _pairs(members, focus):
            if (x.key, y.key) in rejected or (x.label != y.label and not block.startswith("name:")):
                continue
            signal = _signal(block, x, y, person_label)
            if signal is None:
                continue
            strength, reasons = found.get((x.key, y.key), (0.0, set()))
            found[(x.key, y.key)] = (max(strength, signal[0]), {*reasons, signal[1]})
    proposals = [Proposal(a, b, s, tuple(sorted(r))) for (a, b), (s, r) in found.items()]
    return sorted(proposals, key=lambda p: (-p.strength, p.a, p.b))


def pair(a: str, b: str) -> tuple[str, str]:
    """A pair of entity keys in the order the queue and its rejections store it."""
    return (a, b) if a < b else (b, a)
