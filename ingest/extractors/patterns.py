"""Relation patterns for the offline extractor: what the text between two entities of one sentence must say.

The patterns are schema data (`relationship_types.<TYPE>.surface_patterns` in the schema file, see
docs/graph-model.md); this module compiles them. Each pattern is a full match over the text between the first and the
second entity (other entities in between are replaced by `ENT`), so a relation is only emitted when the sentence
states it plainly: precision over recall. `reverse=True` means the second entity is the subject ("Lumen Labs CEO Ada
Park": Ada Park CEO_OF Lumen Labs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphwire.schema.model import GraphSchema

ENT = "\x00"  # stands in for an entity between the pair


@dataclass(frozen=True)
class RelationPattern:
    name: str
    type: str
    subject_labels: frozenset[str]
    object_labels: frozenset[str]
    between: re.Pattern[str]
    reverse: bool = False
    after_not: re.Pattern[str] | None = None  # the text after the second entity must not start like this
    after_must: re.Pattern[str] | None = None  # ... or must start like this ("X, the former Y executive")
    subject_must: re.Pattern[str] | None = None  # searched in the subject's name ("a regulator")
    # "the CEO of Alameda" says Alameda is an organisation even when NER typed it as a place: retype the object.
    coerce_object: str | None = None
    coercible: frozenset[str] = frozenset()  # the labels coerce_object may override (NER's usual mistakes)

    def applies(self, first_label: str, second_label: str) -> bool:
        subj, obj = (second_label, first_label) if self.reverse else (first_label, second_label)
        return subj in self.subject_labels and (obj in self.object_labels or self.coerces(obj))

    def coerces(self, label: str) -> bool:
        return self.coerce_object is not None and label in self.coercible and label not in self.object_labels

    def subject_check(self, name: str) -> bool:
        return self.subject_must is None or self.subject_must.search(name) is not None


def compile_patterns(schema: GraphSchema) -> tuple[RelationPattern, ...]:
    """The schema's surface patterns, in file order, ready for the extractor."""
    coercible = frozenset(schema.extraction.coercible_labels)
    compiled = []
    for rel_type, rules in schema.relation_rules.items():
        for sp in rules.surface_patterns:
            flags = 0 if sp.case_sensitive else re.IGNORECASE
            after_not, after_must, subject = (
                schema.expand(r) for r in (sp.after_not, sp.after_must, sp.subject_matches)
            )
            compiled.append(
                RelationPattern(
                    name=sp.name,
                    type=rel_type,
                    subject_labels=frozenset(sp.subject),
                    object_labels=frozenset(sp.object),
                    between=re.compile(schema.expand(sp.between) or "", flags),
                    reverse=sp.reverse,
                    after_not=re.compile(after_not) if after_not else None,
                    after_must=re.compile(after_must, flags) if after_must else None,
                    subject_must=re.compile(subject, re.IGNORECASE) if subject else None,
                    coerce_object=sp.coerce_object,
                    coercible=frozenset(sp.coerce_from) if sp.coerce_from is not None else coercible,
                )
            )
    return tuple(compiled)
