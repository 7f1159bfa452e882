"""Names the offline extractor should recognise before spaCy's NER guesses: outlets, legal charges, awards.

Publications come from the corpus's `source` values (plus the outlets of the schema's gazetteer file, e.g.
schema/news.gazetteer.yaml); a short form such as "The Independent" for "The Independent - Life and Style" is an
alias only when exactly one source has it. Known names, phrases and head words come from the same file, so a schema
for another domain brings its own.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from graphwire.core.names import label_norm
from graphwire.schema.model import GraphSchema
from graphwire.schema.roles import SchemaRoles

_SOURCE_SPLIT = re.compile(r"\s+[-|:]\s+")


class Publication(BaseModel):
    name: str
    aliases: list[str] = Field(default_factory=list)


class KnownEntity(BaseModel):
    """A name the corpus owner knows, with its label and aliases (from a gazetteer YAML file)."""

    name: str
    label: str
    aliases: list[str] = Field(default_factory=list)


class Gazetteer(BaseModel):
    roles: SchemaRoles  # the schema's: which label the publications take, how their names normalise
    publications: list[Publication] = Field(default_factory=list)
    known: list[KnownEntity] = Field(default_factory=list)
    phrases: dict[str, list[str]] = Field(default_factory=dict)  # label -> phrases matched ignoring case
    names: dict[str, list[str]] = Field(default_factory=dict)  # label -> names matched as written
    head_words: dict[str, list[str]] = Field(default_factory=dict)  # label -> "Title Case Words" + one of these

    @classmethod
    def from_sources(
        cls, sources: Iterable[str | None], include_common: bool = True, *, schema: GraphSchema
    ) -> Gazetteer:
        """The corpus's sources as publications, plus (`include_common`) the outlets and well-known names of the
        schema's gazetteer file; its phrases, names and head words always."""
        data, roles = schema.gazetteer_data, schema.roles
        names = [s for s in dict.fromkeys(sources) if s]
        if include_common:
            taken = {label_norm(n, roles.publisher_label, roles) for n in names}
            names += [
                p.name for p in data.publications if label_norm(p.name, roles.publisher_label, roles) not in taken
            ]
        known = []
        if include_common:
            known = [
                KnownEntity(name=e.name, label=label, aliases=e.aliases)
                for label, entries in data.entities.items()
                for e in entries
            ]
        aliases = {p.name: p.aliases for p in data.publications if p.aliases}
        return cls(
            roles=roles,
            publications=_with_short_forms(names, aliases),
            known=known,
            phrases={label: list(items) for label, items in data.phrases.items()},
            names={label: list(items) for label, items in data.names.items()},
            head_words={label: list(items) for label, items in data.head_words.items()},
        )

    def with_file(self, path: Path) -> Gazetteer:
        """Add the entities of a gazetteer YAML file: `Label: [name, {name: X, aliases: [..]}, ...]`."""
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(raw, dict):
            raise ValueError(f"{path}: expected a mapping of label -> list of names")
        known = list(self.known)
        for label, items in raw.items():
            for item in items or []:
                entry = {"name": item} if isinstance(item, str) else dict(item)
                known.append(KnownEntity(label=str(label), **entry))
        publisher = self.roles.publisher_label
        publications = self.publications + [
            Publication(name=k.name, aliases=k.aliases) for k in known if k.label == publisher
        ]
        return self.model_copy(
            update={"known": [k for k in known if k.label != publisher], "publications": publications}
        )

    def publication_aliases(self) -> dict[str, str]:
        """Normalised alias -> canonical publication name (only unambiguous aliases)."""
        table: dict[str, str] = {}
        for pub in self.publications:
            for alias in [pub.name, *pub.aliases]:
                table.setdefault(label_norm(alias, self.roles.publisher_label, self.roles), pub.name)
        return table

    def ruler_patterns(self) -> list[dict[str, Any]]:
        """spaCy entity_ruler patterns; the `id` carries the canonical name."""
        patterns: list[dict[str, Any]] = []
        for pub in self.publications:
            for alias in dict.fromkeys([pub.name, *pub.aliases]):
                patterns.append({"label": self.roles.publisher_label, "pattern": alias, "id": pub.name})
        for entity in self.known:
            for alias in dict.fromkeys([entity.name, *entity.aliases]):
                patterns.append({"label": entity.label, "pattern": alias, "id": entity.name})
        for label, phrases in self.phrases.items():
            for phrase in phrases:
                tokens = [{"LOWER": t} for t in re.findall(r"\w+|[^\w\s]", phrase.lower())]
                patterns.append({"label": label, "pattern": tokens, "id": phrase})
        for label, names in self.names.items():
            for name in names:
                patterns.append({"label": label, "pattern": name, "id": name})
                patterns.append({"label": label, "pattern": name.replace("'", "\u2019"), "id": name})
        for label, heads in self.head_words.items():
            patterns.append({"label": label, "pattern": [{"IS_TITLE": True, "OP": "+"}, {"LOWER": {"IN": heads}}]})
        return patterns


def _with_short_forms(names: list[str], known_aliases: dict[str, list[str]]) -> list[Publication]:
    """Give each source its short form ("FOX News - Health" -> "FOX News") when no other source shares it."""
    short_owner: dict[str, list[str]] = defaultdict(list)
    for name in names:
        short = _SOURCE_SPLIT.split(name)[0].strip()
        if short != name and len(short) > 2:
            short_owner[short].append(name)
    pubs = []
    for name in names:
        aliases = [s for s, owners in short_owner.items() if owners == [name]] + known_aliases.get(name, [])
        pubs.append(Publication(name=name, aliases=aliases))
    return pubs
