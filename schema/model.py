"""Typed view of a schema file, with the checks that keep extraction inside it.

A schema file holds the closed graph model (labels, relationship types, allowed patterns) and the domain knowledge
that goes with it, so that pointing `SCHEMA_PATH` at another file switches domain without code changes:

- per node label (`node_labels.<Label>`, a description or a mapping): spaCy NER labels it takes, the question words
  that ask for it, head words that retype a name, how names of it are cleaned;
- per relationship type (`relationship_types.<TYPE>`): allowed (source, target) label pairs, question cue words,
  answer phrases, the offline extractor's surface patterns, and `provenance: inferred` for a type the ingest derives
  from the graph's structure (REPORTED_BY) rather than from a sentence, whose `chunk_ids` list is capped;
- per schema: `extraction` (regex macros for the patterns, stop names, labels NER confuses), `gazetteer`, a data
  file of known names (outlets, well-known organisations, charges, awards, outlet short forms for questions), and
  `roles` (schema/roles.py: the outlet label, the "reported by" type, which labels drop "the" or a suffix, surnames).

A label or type may still be given as a bare description string (the short form); it then carries no vocabulary.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal, NamedTuple

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from graphwire.schema.roles import SchemaRoles

_IDENT = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_REL_IDENT = re.compile(r"^[A-Z][A-Z0-9_]*$")
_MACRO = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")  # {MOD} in a surface pattern; regex quantifiers ({0,40}) never match
# Labels and types graphwire itself writes beside the extracted ones; a schema may not reuse them.
RESERVED_LABELS = frozenset({"Entity", "Document", "Chunk", "Date"})
RESERVED_TYPES = frozenset({"MENTIONS", "HAS_CHUNK", "PUBLISHED_ON", "NEXT_DAY"})
# spaCy's OntoNotes labels onto the usual label names, for a schema that declares no `ner` lists of its own.
DEFAULT_NER_LABELS = {
    "PERSON": "Person",
    "ORG": "Organization",
    "PRODUCT": "Product",
    "EVENT": "Event",
    "WORK_OF_ART": "CreativeWork",
    "GPE": "Location",
    "LOC": "Location",
    "FAC": "Location",
}


class Pattern(NamedTuple):
    source: str
    type: str
    target: str


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LabelRules(_Strict):
    """What a schema says about one node label beyond its description."""

    ner: list[str] = Field(default_factory=list)  # spaCy NER labels typed as this label (PERSON, ORG, ...)
    question_words: list[str] = Field(default_factory=list)  # "which company", "who": word starts asking for it
    head_words: list[str] = Field(default_factory=list)  # a name ending in one is this label ("Lumen Labs")
    relabel_from: list[str] = Field(default_factory=list)  # ... when NER typed it as one of these
    strip_suffix: str | None = None  # regex removed from the end of a NER name ("Brightwater Bank CFO")
    keep_article: bool = False  # keep a leading "the" ("The Verge"); other labels drop it
    relation_only: bool = False  # keep an entity only when a relation uses it (a bare "fraud" is a topic)
    lowercase_names: bool = False  # names may be all lower case (charges); others need a capital or digit
    max_words: int | None = None  # a NER name of more words is not one of these ("Person": 5)
    no_digits: bool = False  # a NER name with a digit is not one of these (people's names have none)


class SurfacePattern(_Strict):
    """One offline-extractor pattern: the text between a sentence's two entities must fully match `between`.

    Other entities in between are replaced by NUL (`\\x00` in a regex). `reverse`: the second entity is the
    subject. `{MACRO}` inserts a regex fragment of the schema's `extraction.macros`.
    """

    name: str
    subject: list[str] = Field(min_length=1)
    object: list[str] = Field(min_length=1)
    between: str
    reverse: bool = False
    case_sensitive: bool = False
    after_not: str | None = None  # the text after the second entity must not start like this (case-sensitive)
    after_must: str | None = None  # ... or must start like this ("X, the former Y executive")
    subject_matches: str | None = None  # regex searched, ignoring case, in the subject's name ("a regulator")
    coerce_object: str | None = None  # "the CEO of Alameda": the object is this label even if NER said a place
    coerce_from: list[str] | None = None  # labels coerce_object may override here (default: extraction's)


class RelationRules(_Strict):
    """What a schema says about one relationship type beyond its description."""

    cues: list[str] = Field(default_factory=list)  # question words asking for it: regex fragments at word starts
    # a follow-up answer joined to the previous one: (previous is the subject, previous is the object)
    phrases: tuple[str, str] | None = None
    supersedes: list[str] = Field(default_factory=list)  # weaker types this one replaces between the same pair
    surface_patterns: list[SurfacePattern] = Field(default_factory=list)
    # inferred: derived for every chunk from the graph's structure, a hub: keeps only PROVENANCE_CAP chunk ids
    provenance: Literal["extracted", "inferred"] = "extracted"


class ExtractionRules(_Strict):
    macros: dict[str, str] = Field(default_factory=dict)  # named regex fragments for surface patterns
    stop_names: list[str] = Field(default_factory=list)  # names never taken as entities (lower case)
    coercible_labels: list[str] = Field(default_factory=list)  # labels a pattern's coerce_object may override


class KnownName(_Strict):
    name: str
    aliases: list[str] = Field(default_factory=list)


def _named(items: list[Any]) -> list[Any]:
    return [{"name": item} if isinstance(item, str) else item for item in items or []]


class GazetteerData(_Strict):
    """A schema's gazetteer file: names the extractor and the question analysis know before reading a corpus."""

    publications: list[KnownName] = Field(default_factory=list)  # outlets the entity ruler tags in article text
    entities: dict[str, list[KnownName]] = Field(default_factory=dict)  # label -> names NER tends to mistype
    phrases: dict[str, list[str]] = Field(default_factory=dict)  # label -> phrases matched ignoring case
    names: dict[str, list[str]] = Field(default_factory=dict)  # label -> names matched as written
    head_words: dict[str, list[str]] = Field(default_factory=dict)  # label -> title-case words + one of these
    question_outlets: list[str] = Field(default_factory=list)  # outlets a question may name the corpus lacks
    question_aliases: dict[str, list[str]] = Field(default_factory=dict)  # lower-cased source head -> short forms
    not_outlet_after: dict[str, str] = Field(default_factory=dict)  # surface -> regex after it: not the outlet

    @field_validator("publications", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        return _named(value)

    @field_validator("entities", mode="before")
    @classmethod
    def _entity_names(cls, value: Any) -> Any:
        return {label: _named(items) for label, items in (value or {}).items()}


class GraphSchema(BaseModel):
    """A closed schema: only these labels, types and (source, type, target) patterns may enter the graph."""

    name: str
    version: str
    node_labels: dict[str, str] = Field(min_length=1)
    relationship_types: dict[str, str] = Field(min_length=1)
    patterns: list[Pattern] = Field(min_length=1)
    label_rules: dict[str, LabelRules] = Field(default_factory=dict)
    relation_rules: dict[str, RelationRules] = Field(default_factory=dict)
    extraction: ExtractionRules = Field(default_factory=ExtractionRules)
    gazetteer: str | None = None  # the gazetteer file, relative to the schema file
    title_label: str | None = None  # label of a title entity the tagger did not label (ingest/entity_layer.py)
    gazetteer_data: GazetteerData = Field(default_factory=GazetteerData)
    roles: SchemaRoles = Field(default_factory=SchemaRoles)  # which label is the outlet, ... (schema/roles.py)

    @model_validator(mode="before")
    @classmethod
    def _split_long_forms(cls, raw: Any) -> Any:
        """`node_labels.X` / `relationship_types.T` may be mappings: the description stays where it was, the rest
        goes to `label_rules` / `relation_rules`, and a type's `allowed` pairs join `patterns`."""
        if not isinstance(raw, dict):
            return raw
        raw = dict(raw)
        labels, label_rules = _split(raw.get("node_labels"), dict(raw.get("label_rules") or {}))
        types, relation_rules = _split(raw.get("relationship_types"), dict(raw.get("relation_rules") or {}))
        patterns = [tuple(p) for p in raw.get("patterns") or []]
        for rel_type, rules in relation_rules.items():
            for pair in rules.pop("allowed", None) or []:
                if not isinstance(pair, list | tuple) or len(pair) != 2:
                    raise ValueError(f"{rel_type}: an allowed pair is [source label, target label], not {pair!r}")
                pattern = (pair[0], rel_type, pair[1])
                if pattern not in patterns:
                    patterns.append(pattern)
        raw.update(node_labels=labels, relationship_types=types, label_rules=label_rules)
        raw.update(relation_rules=relation_rules, patterns=patterns)
        return raw

    @model_validator(mode="after")
    def _check_consistency(self) -> GraphSchema:
        for label in self.node_labels:
            if not _IDENT.match(label) or label in RESERVED_LABELS:
                raise ValueError(f"invalid or reserved node label {label!r}")
        for rel in self.relationship_types:
            if not _REL_IDENT.match(rel) or rel in RESERVED_TYPES:
                raise ValueError(f"invalid or reserved relationship type {rel!r}")
        for p in self.patterns:
            if p.source not in self.node_labels or p.target not in self.node_labels:
                raise ValueError(f"pattern {tuple(p)} names a label that is not in node_labels")
            if p.type not in self.relationship_types:
                raise ValueError(f"pattern {tuple(p)} names a type that is not in relationship_types")
        self._check_rules()
        return self

    def _check_rules(self) -> None:
        def known_labels(where: str, labels: list[str]) -> None:
            unknown = [label for label in labels if label not in self.node_labels]
            if unknown:
                raise ValueError(f"{where} names labels that are not in node_labels: {unknown}")

        for label, rules in self.label_rules.items():
            known_labels(f"node label {label}", rules.relabel_from)
            _compiles(f"node label {label} strip_suffix", rules.strip_suffix)
        known_labels("extraction.coercible_labels", self.extraction.coercible_labels)
        known_labels("title_label", [self.title_label] if self.title_label else [])
        for rel_type, relation in self.relation_rules.items():
            weaker = [t for t in relation.supersedes if t not in self.relationship_types]
            if weaker:
                raise ValueError(f"{rel_type} supersedes types that are not in relationship_types: {weaker}")
            for cue in relation.cues:
                _compiles(f"{rel_type} cue", cue)
            allowed = {(p.source, p.target) for p in self.patterns if p.type == rel_type}
            for sp in relation.surface_patterns:
                where = f"{rel_type} surface pattern {sp.name!r}"
                named = [
                    *sp.subject,
                    *sp.object,
                    *([sp.coerce_object] if sp.coerce_object else []),
                    *(sp.coerce_from or []),
                ]
                known_labels(where, named)
                objects = [*sp.object, *([sp.coerce_object] if sp.coerce_object else [])]
                if not any((s, o) in allowed for s in sp.subject for o in objects):
                    raise ValueError(f"{where}: no (subject, object) label pair of it is an allowed pattern")
                for field_name in ("between", "after_not", "after_must", "subject_matches"):
                    _compiles(f"{where} {field_name}", self.expand(getattr(sp, field_name)))
        names = [sp.name for r in self.relation_rules.values() for sp in r.surface_patterns]
        if len(names) != len(set(names)):
            raise ValueError("surface pattern names must be unique")

    def expand(self, regex: str | None) -> str | None:
        """A surface-pattern regex with its `{MACRO}`s replaced by the schema's `extraction.macros`."""
        if regex is None:
            return None

        def sub(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in self.extraction.macros:
                raise ValueError(f"unknown macro {{{name}}} (extraction.macros has {sorted(self.extraction.macros)})")
            return self.extraction.macros[name]

        return _MACRO.sub(sub, regex)

    @property
    def labels(self) -> list[str]:
        return list(self.node_labels)

    @property
    def types(self) -> list[str]:
        return list(self.relationship_types)

    def allows(self, source: str, rel_type: str, target: str) -> bool:
        return Pattern(source, rel_type, target) in self._pattern_set

    @property
    def _pattern_set(self) -> frozenset[Pattern]:
        return frozenset(self.patterns)

    def rules_for(self, label: str) -> LabelRules:
        return self.label_rules.get(label) or LabelRules()

    @cached_property
    def ner_labels(self) -> dict[str, str]:
        """spaCy NER label -> schema label (the usual names when the schema declares no `ner` lists)."""
        declared = {ner: label for label, rules in self.label_rules.items() for ner in rules.ner}
        return declared or DEFAULT_NER_LABELS

    @cached_property
    def relation_cues(self) -> dict[str, tuple[str, ...]]:
        """Relationship type -> the question words that ask for it (types without cues left out)."""
        return {t: tuple(r.cues) for t, r in self.relation_rules.items() if r.cues}

    @cached_property
    def label_words(self) -> dict[str, tuple[str, ...]]:
        """Node label -> the question words that ask for it ("which company" -> Organization)."""
        return {label: tuple(r.question_words) for label, r in self.label_rules.items() if r.question_words}

    @cached_property
    def inferred_types(self) -> frozenset[str]:
        """Relationship types marked `provenance: inferred`: their provenance lists are capped when written."""
        return frozenset(t for t, r in self.relation_rules.items() if r.provenance == "inferred")

    @cached_property
    def answer_phrases(self) -> dict[str, tuple[str, str]]:
        return {t: r.phrases for t, r in self.relation_rules.items() if r.phrases is not None}

    @property
    def fingerprint(self) -> str:
        """Changes whenever anything an extractor sees changes; part of the extraction cache key. A type's
        `provenance` and the `roles` are left out: they change how extractions are resolved and stored, not what is
        extracted; so are a label's `question_words`, which only the answerer reads."""
        blob = self.model_dump_json(
            exclude={
                "relation_rules": {"__all__": {"provenance"}},
                "label_rules": {"__all__": {"question_words"}},
                "roles": True,
            }
        )
        return f"{self.name}-{self.version}-{hashlib.sha256(blob.encode()).hexdigest()[:12]}"

    def describe(self) -> str:
        """The schema as instructions for an extractor: labels, types and the allowed patterns."""
        lines = ["Node labels:"]
        lines += [f"- {label}: {text}" for label, text in self.node_labels.items()]
        lines.append("Relationship types:")
        lines += [f"- {rel}: {text}" for rel, text in self.relationship_types.items()]
        lines.append("Allowed (source label, relationship, target label) patterns; anything else is discarded:")
        lines += [f"- ({p.source})-[:{p.type}]->({p.target})" for p in self.patterns]
        return "\n".join(lines)


def _split(section: Any, rules: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """{name: description | {description: ..., **rules}} -> ({name: description}, {name: rules})."""
    if not isinstance(section, dict):
        return section, rules
    descriptions: dict[str, Any] = {}
    for name, value in section.items():
        if isinstance(value, dict):
            value = dict(value)
            if "description" not in value:
                raise ValueError(f"{name}: a mapping entry needs a description")
            descriptions[name] = value.pop("description")
            rules[name] = value
        else:
            descriptions[name] = value
    return descriptions, rules


def _compiles(where: str, regex: str | None) -> None:
    if regex is None:
        return
    try:
        re.compile(regex)
    except re.error as exc:
        raise ValueError(f"{where}: invalid regex {regex!r}: {exc}") from exc


def default_schema_path() -> Path:
    return Path(__file__).with_name("news.yaml")


def bundled_schema_paths() -> list[Path]:
    """The schema files that ship with graphwire (news.yaml, encyclopedia.yaml)."""
    return sorted(p for p in Path(__file__).parent.glob("*.yaml") if not p.name.endswith(".gazetteer.yaml"))


@cache
def load_schema(path: Path | None = None) -> GraphSchema:
    """Load and validate a schema file (and the gazetteer file it names); a bad file fails with the reason.

    A relative path that does not exist from the working directory but names a bundled schema ("encyclopedia.yaml",
    "schema/encyclopedia.yaml") loads the bundled file, so SCHEMA_PATH works wherever the process runs."""
    source = _bundled_fallback(path) if path is not None else default_schema_path()
    raw = _read_yaml(source, "schema")
    if isinstance(raw, dict) and raw.get("gazetteer") and "gazetteer_data" not in raw:
        gazetteer = source.parent / str(raw["gazetteer"])
        raw = {**raw, "gazetteer_data": _read_yaml(gazetteer, "gazetteer") or {}}
    return GraphSchema.model_validate(raw)


def _bundled_fallback(path: Path) -> Path:
    bundled = Path(__file__).parent / path.name
    if path.is_absolute() or path.exists() or path.parent not in (Path(), Path("schema")) or not bundled.is_file():
        return path
    return bundled


def _read_yaml(path: Path, what: str) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"cannot read {what} file {path}: {exc}") from exc
