"""Chain search for the extractive answerer: the entity at the end of a chain of facts that starts at a question
entity and whose relationship types cover every relation the question asks about (each as often as the question
chains it); several entities tied at the end of the same last hop are listed ("wire fraud and money laundering");
and the composition of a multi-part answer ("Vantor Dynamics, run by Greta Holm")."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from graphwire.retrieval.models import Fact, FactTier
from graphwire.schema.roles import SchemaRoles

_MAX_CHAIN = 4
_MAX_PATHS = 20_000
TIER_WEIGHT = {FactTier.KEY: 3.0, FactTier.BRIDGE: 2.5, FactTier.DIRECT: 1.0}


@dataclass
class Chain:
    """The answer a chain of facts reaches: its name(s), and the facts from the anchors to it."""

    names: list[str]
    facts: list[Fact] = field(default_factory=list)
    last: Fact | None = None  # the hop into the answer (for composing a follow-up)
    answer_facts: list[Fact] = field(default_factory=list)  # the hops into the answer(s): what an answer cites


def explained(facts: list[Fact], roles: SchemaRoles) -> set[str]:
    """Relationship types already stated between two question entities ("Skylark Aero, the maker of the Kestrel");
    the schema's reported-by type states nothing."""
    return {f.relationship for f in facts if f.tier is FactTier.KEY and f.relationship != roles.reported_by_type}


def _paths(facts: list[Fact], starts: set[str], types: set[str]) -> list[tuple[str, str, tuple[Fact, ...]]]:
    """Every simple path (start, end, facts) of up to _MAX_CHAIN facts of the given types, walked both ways."""
    adjacency: dict[str, list[tuple[Fact, str]]] = defaultdict(list)
    for fact in facts:
        if fact.relationship in types and fact.subject != fact.object:
            adjacency[fact.subject].append((fact, fact.object))
            adjacency[fact.object].append((fact, fact.subject))
    paths: list[tuple[str, str, tuple[Fact, ...]]] = []
    stack: list[tuple[str, str, tuple[Fact, ...], frozenset[str]]] = [(s, s, (), frozenset({s})) for s in starts]
    while stack and len(paths) < _MAX_PATHS:
        start, node, walked, visited = stack.pop()
        if len(walked) >= _MAX_CHAIN:
            continue
        for fact, neighbour in adjacency[node]:
            if neighbour in visited:
                continue
            path = (*walked, fact)
            paths.append((start, neighbour, path))
            stack.append((start, neighbour, path, visited | {neighbour}))
    return paths


def _node_labels(facts: list[Fact]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for fact in facts:
        labels.setdefault(fact.subject, fact.subject_label)
        labels.setdefault(fact.object, fact.object_label)
    return labels


def best_chain(
    facts: list[Fact],
    anchors: set[str],
    asked: dict[str, int],
    label: str | None,
    explained: set[str],
    excluded: set[str],
    roles: SchemaRoles,
) -> Chain | None:
    """The entity whose chains from the anchors cover every asked relationship type; ties at the end of the same last
    hop are listed; any other tie, or no covering chain, is None."""
    need = set(asked) - {roles.reported_by_type}
    if not need:
        return None
    labels = _node_labels(facts)
    per_end: dict[str, dict[str, tuple[Fact, ...]]] = defaultdict(dict)  # end -> anchor -> best path
    for start, end, path in _paths(facts, anchors, need):
        if end in excluded or end in anchors:
            continue
        node_label = labels.get(end)
        if (label and node_label != label) or (not label and node_label == roles.publisher_label):
            continue
        best = per_end[end].get(start)
        if best is None or _path_key(path, need, asked) < _path_key(best, need, asked):
            per_end[end][start] = path
    ranked: list[tuple[tuple[float, ...], str, list[tuple[Fact, ...]]]] = []
    for end, by_anchor in per_end.items():
        chosen = list(by_anchor.values())
        covered = explained.union(*({f.relationship for f in p} for p in chosen))
        if not need <= covered:
            continue  # some asked relation has no supporting fact on the way to this entity
        counts: Counter[str] = Counter()
        for p in chosen:
            counts |= Counter(f.relationship for f in p)
        mismatch = sum(abs(min(asked[t], 2) - min(counts[t], 2)) for t in need if counts[t])
        length = max(len(p) for p in chosen)
        tiers = sum(TIER_WEIGHT[f.tier] for p in chosen for f in p)
        ranked.append(((-len(chosen), mismatch, length, -tiers), end, chosen))
    if not ranked:
        return None
    ranked.sort(key=lambda item: (item[0], item[1]))
    top = [item for item in ranked if item[0] == ranked[0][0]]
    names = [end for _, end, _ in top]
    if len(top) > 1 and not _stated_together(names, [p[-1] for _, _, chosen in top for p in chosen]):
        return None  # a tie is an answer only when one sentence gives them all ("charged with A and B")
    names = _in_evidence_order(names, [p[-1] for _, _, chosen in top for p in chosen])
    first_path = top[0][2][0]
    all_facts: list[Fact] = []
    for fact in (f for _, _, chosen in top for p in chosen for f in p):
        if not any(fact is kept for kept in all_facts):
            all_facts.append(fact)
    into = [p[-1] for _, _, chosen in top for p in chosen]
    return Chain(names=names, facts=all_facts, last=first_path[-1], answer_facts=into)


def _path_key(path: tuple[Fact, ...], need: set[str], asked: dict[str, int]) -> tuple[int, int, int]:
    types = Counter(f.relationship for f in path)
    mismatch = sum(abs(min(asked[t], 2) - min(types[t], 2)) for t in need if types[t])
    return (-len(need & set(types)), mismatch, len(path))


def _stated_together(names: list[str], facts: list[Fact]) -> bool:
    return any(all(name.lower() in sentence.lower() for name in names) for f in facts for sentence in f.evidence)


def _in_evidence_order(names: list[str], facts: list[Fact]) -> list[str]:
    """Names in the order the evidence sentence gives them ("wire fraud and money laundering"), else by name."""
    text = " ".join(e for f in facts for e in f.evidence).lower()

    def position(name: str) -> tuple[int, str]:
        found = text.find(name.lower())
        return (found if found >= 0 else len(text) + 1, name)

    return sorted(dict.fromkeys(names), key=position)


def compose(
    text: str, previous: Chain | None, chain: Chain, follow_up: bool, phrases: dict[str, tuple[str, str]]
) -> str:
    """The first part's answer as is; a follow-up joined by its relationship to the previous answer."""
    name = " and ".join(chain.names)
    if previous is None:
        return name
    last = chain.last
    if follow_up and last is not None and len(chain.facts) == 1 and last.relationship in phrases:
        as_subject, as_object = phrases[last.relationship]
        phrase = as_subject if last.subject in previous.names else as_object
        return f"{text}, {phrase} {name}"
    return f"{text}; {name}"
