"""Entity resolution: map every extracted (name, label) to one entity key, within a run and across runs.

Rules, in order: publication aliases from the gazetteer; the same normalised name (case, punctuation, accents,
corporate suffixes, leading "the"); a known alias; within one document, a lone surname to the one full name it ends;
a fuzzy match (rapidfuzz ratio) within the same label, length band and initials above the threshold, never when the
numbers in the names differ and never for short names. Labels never mix: "Jordan" the Person and "Jordan" the Location
stay two entities.

Entities already in the graph are read lazily: before a batch is resolved, `prefetch` asks the graph (through an
`EntitySource`, ingest/entity_lookup.py) for those its names can resolve to, exactly or by a fuzzy match, and only for
names not resolved before. A run therefore reads what it touches, not every entity.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rapidfuzz import fuzz, process

from graphwire.core.names import clean_surface, digits_of, entity_key, label_norm, normalise_name
from graphwire.core.settings import default_of
from graphwire.ingest.entity_lookup import fuzzy_key, fuzzy_keys_for, indexes_alias, resolve_key
from graphwire.ingest.models import Extraction
from graphwire.schema.model import GraphSchema


@dataclass
class ResolvedEntity:
    key: str
    label: str
    name: str
    norm: str
    aliases: list[str] = field(default_factory=list)


@dataclass
class ResolutionStats:
    exact: int = 0
    alias: int = 0
    surname: int = 0
    fuzzy: int = 0
    new: int = 0

    @property
    def merged(self) -> int:
        """Surface forms that joined an entity under a different normalised name."""
        return self.alias + self.surname + self.fuzzy


class EntitySource(Protocol):
    """Where stored entities come from: rows of key, label, name, norm, aliases."""

    def by_names(self, resolve_keys: Sequence[str], fuzzy_keys: Sequence[str]) -> list[dict[str, Any]]: ...


class EntityResolver:
    """`schema`: its roles say which label is the outlet, which labels drop "the" or a suffix, and surnames."""

    def __init__(
        self,
        fuzzy_threshold: float = default_of("fuzzy_merge_threshold"),
        publication_aliases: dict[str, str] | None = None,
        source: EntitySource | None = None,
        *,
        schema: GraphSchema,
    ) -> None:
        self.roles = schema.roles
        self.fuzzy_threshold = fuzzy_threshold
        self.publication_aliases = publication_aliases or {}
        self.source = source  # the graph's entities, read by `prefetch`; None: only what `load` was given
        self.entities: dict[str, ResolvedEntity] = {}
        self._by_norm: dict[tuple[str, str], str] = {}  # (label, norm) -> key, for names and aliases
        # fuzzy_key (label, length, initials) -> normalised names: a ratio above ~85 needs lengths within 15%, and a
        # merge the same initials, so fuzzy matching only looks at those names instead of every name of the label.
        self._norms_by_shape: dict[str, list[str]] = defaultdict(list)
        self._norm_key: dict[tuple[str, str], str] = {}  # (label, primary norm) -> key, fuzzy candidates
        self._stored_aliases: dict[str, int] = {}  # key -> how many of its aliases the graph already has
        self._asked: set[tuple[str, str]] = set()  # (label, norm) the source was asked about
        self._asked_keys: set[str] = set()  # entity keys the source was asked about (`by_key`)
        self.stored: set[str] = set()  # keys of the entities read from the graph
        self.stats = ResolutionStats()

    def load(self, rows: Iterable[dict[str, object]]) -> None:
        """Seed with entities already in the graph (key, label, name, norm, aliases), so runs resolve together.
        Entities this resolver holds already are kept as they are (they may have gained aliases since)."""
        for row in rows:
            if str(row["key"]) in self.entities:
                continue
            aliases = [str(a) for a in row.get("aliases") or []]  # type: ignore[attr-defined]
            entity = ResolvedEntity(str(row["key"]), str(row["label"]), str(row["name"]), str(row["norm"]), aliases)
            self._register(entity)
            self._stored_aliases[entity.key] = len(aliases)
            self.stored.add(entity.key)

    def prefetch(self, names: Iterable[tuple[str, str]]) -> None:
        """Read from the source the stored entities these (surface, label) pairs may resolve to: by name or alias,
        and the fuzzy candidates. Pairs resolved (or asked about) before cost nothing."""
        if self.source is None:
            return
        resolve_keys: set[str] = set()
        fuzzy_keys: set[str] = set()
        for name, label in names:
            for norm in {self._norm(name, label), self._label_norm(clean_surface(name), label)}:
                if not norm or (label, norm) in self._by_norm or (label, norm) in self._asked:
                    continue
                self._asked.add((label, norm))
                resolve_keys.add(resolve_key(label, norm))
                fuzzy_keys.update(fuzzy_keys_for(label, norm))
        if resolve_keys:
            self.load(self.source.by_names(sorted(resolve_keys), sorted(fuzzy_keys)))

    def by_key(self, key: str) -> ResolvedEntity | None:
        """The entity with this key, read from the source once if this resolver does not hold it (a curation rule's
        target: ingest/curation/rules.py); None when the graph lacks it."""
        self.prefetch_keys([key])
        return self.entities.get(key)

    def prefetch_keys(self, keys: Iterable[str]) -> None:
        """Read the stored entities of these keys that this resolver neither holds nor asked about, in one query."""
        wanted = sorted({k for k in keys if k not in self.entities and k not in self._asked_keys})
        if self.source is None or not wanted:
            return
        self._asked_keys.update(wanted)
        self.load(self.source.by_names([k.replace(":", "|", 1) for k in wanted], []))

    def adopt(self, key: str, name: str) -> ResolvedEntity:
        """A new entity with this exact key and name (a curation rule's target the graph no longer has)."""
        label, norm = key.split(":", 1)
        entity = ResolvedEntity(key, label, name, norm, [name])
        self._register(entity)
        self.stats.new += 1
        return entity

    def take_unstored(self, keys: Iterable[str]) -> list[ResolvedEntity]:
        """Those of `keys` the graph lacks or holds with fewer aliases; from now on they count as stored.

        Aliases only grow, so a count is enough. Only entities that changed are written again: re-sending every
        entity a batch mentions made entity writes the slowest part of ingestion."""
        out = []
        for key in dict.fromkeys(keys):
            entity = self.entities[key]
            if len(entity.aliases) > self._stored_aliases.get(key, 0):
                self._stored_aliases[key] = len(entity.aliases)
                out.append(entity)
        return out

    def resolve(self, name: str, label: str) -> ResolvedEntity | None:
        """The entity this surface form belongs to (created if new); None for a name that normalises to nothing."""
        surface = self._surface(name, label)
        norm = self._label_norm(surface, label)
        if not norm:
            return None
        key = self._by_norm.get((label, norm))
        if key is not None:
            self._count_hit(key, norm)
            return self._with_alias(key, name)
        key = self._fuzzy(label, norm)
        if key is not None:
            self.stats.fuzzy += 1
            self._by_norm[(label, norm)] = key
            return self._with_alias(key, name)
        self.stats.new += 1
        entity = ResolvedEntity(entity_key(label, surface, self.roles), label, surface, norm, [surface])
        self._register(entity)
        return self._with_alias(entity.key, name)

    def resolve_document(self, extractions: list[Extraction]) -> list[Extraction]:
        """Rewrite a lone surname to the one full Person name in the same document that ends with it.

        News text names a person in full once, then by surname; spaCy often types the bare surname as an
        organisation or place, so the rewrite also fixes the label (the schema's `person_label` and
        `surname_labels`)."""
        person = self.roles.person_label
        full_names = {e.name for x in extractions for e in x.entities if e.label == person and " " in e.name}
        by_last: dict[str, set[str]] = defaultdict(set)
        for full in full_names:
            by_last[normalise_name(full.split()[-1])].add(full)
        rename: dict[tuple[str, str], str] = {}
        for x in extractions:
            for e in x.entities:
                if (
                    e.label in self.roles.surname_labels
                    and " " not in e.name
                    and len(by_last.get(normalise_name(e.name), ())) == 1
                ):
                    rename[(e.name, e.label)] = next(iter(by_last[normalise_name(e.name)]))
        if not rename:
            return extractions
        self.stats.surname += len(rename)
        return [_renamed(x, rename, person) for x in extractions]

    def _surface(self, name: str, label: str) -> str:
        """The surface form a name resolves under: cleaned, and a publication alias mapped to its outlet."""
        surface = clean_surface(name)
        if label == self.roles.publisher_label:
            surface = self.publication_aliases.get(self._label_norm(surface, label), surface)
        return surface

    def _norm(self, name: str, label: str) -> str:
        return self._label_norm(self._surface(name, label), label)

    def _label_norm(self, name: str, label: str) -> str:
        return label_norm(name, label, self.roles)

    def _fuzzy(self, label: str, norm: str) -> str | None:
        candidates = [n for key in fuzzy_keys_for(label, norm) for n in self._norms_by_shape.get(key, ())]
        if not candidates:  # also every name too short to fuzzy-match
            return None
        match = process.extractOne(norm, candidates, scorer=fuzz.ratio, score_cutoff=self.fuzzy_threshold)
        if match is None or digits_of(match[0]) != digits_of(norm):
            return None
        return self._norm_key[(label, match[0])]

    def _count_hit(self, key: str, norm: str) -> None:
        if self.entities[key].norm == norm:
            self.stats.exact += 1
        else:
            self.stats.alias += 1

    def add_alias(self, entity: ResolvedEntity, surface: str) -> None:
        """Record a surface form the extractor saw for this entity (e.g. a surname it was resolved from)."""
        self._with_alias(entity.key, surface)

    def _with_alias(self, key: str, surface: str) -> ResolvedEntity:
        entity = self.entities[key]
        alias = clean_surface(surface)
        if alias and alias not in entity.aliases:
            entity.aliases.append(alias)
            self._index_alias(entity, alias)
        return entity

    def _index_alias(self, entity: ResolvedEntity, alias: str) -> None:
        """Make an alias a lookup key, except a lone surname: "Park" alone must not mean Ada Park everywhere."""
        if not indexes_alias(entity.label, entity.name, alias, self.roles):
            return
        self._by_norm.setdefault((entity.label, self._label_norm(alias, entity.label)), entity.key)

    def _register(self, entity: ResolvedEntity) -> None:
        self.entities[entity.key] = entity
        self._by_norm.setdefault((entity.label, entity.norm), entity.key)
        if (entity.label, entity.norm) not in self._norm_key:
            self._norm_key[(entity.label, entity.norm)] = entity.key
            self._norms_by_shape[fuzzy_key(entity.label, entity.norm)].append(entity.norm)
        for alias in entity.aliases:
            self._index_alias(entity, alias)


def _renamed(extraction: Extraction, rename: dict[tuple[str, str], str], person: str) -> Extraction:
    """Apply surname rewrites; a relation whose relabelled endpoint no longer fits is left to pruning."""
    entities = []
    for e in extraction.entities:
        if (e.name, e.label) in rename:
            e = e.model_copy(
                update={"name": rename[(e.name, e.label)], "label": person, "aliases": [*e.aliases, e.name]}
            )
        entities.append(e)
    relations = []
    for r in extraction.relations:
        update: dict[str, str] = {}
        if (r.source, r.source_label) in rename:
            update.update(source=rename[(r.source, r.source_label)], source_label=person)
        if (r.target, r.target_label) in rename:
            update.update(target=rename[(r.target, r.target_label)], target_label=person)
        relations.append(r.model_copy(update=update) if update else r)
    return extraction.model_copy(update={"entities": entities, "relations": relations})
