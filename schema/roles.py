"""The roles a schema gives its labels and types: the names code asks the schema for instead of spelling them.

- `publisher_label` / `reported_by_type`: a document's `source` becomes an entity of `publisher_label` (an outlet),
  and ingest links every entity a chunk mentions to it with `reported_by_type` (ingest/enrich.py). Graphwire builds
  this layer for any document with a source, whatever the schema's own labels, so the names are always set.
- `the_prefix_labels`: labels whose leading "the" is how people write a name but not its identity ("The Verge" is
  "Verge"); `suffix_labels`: labels whose corporate suffix goes ("Apple Inc." is "Apple"). Both in core/names.py.
- `person_label` / `surname_labels`: a lone surname typed as one of `surname_labels` becomes the one full
  `person_label` name of the document that ends with it (ingest/resolve.py); a lone surname is never a lookup alias
  of a person.

The defaults here are the only ones; schema/news.yaml and schema/encyclopedia.yaml declare theirs in full.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SchemaRoles(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    publisher_label: str = "Publication"
    reported_by_type: str = "REPORTED_BY"
    the_prefix_labels: frozenset[str] = Field(
        default=frozenset({"Organization", "Publication", "Product", "Event", "Location", "Award"})
    )
    suffix_labels: frozenset[str] = Field(default=frozenset({"Organization", "Publication"}))
    person_label: str = "Person"
    surname_labels: frozenset[str] = Field(default=frozenset({"Person", "Organization", "Location"}))

    def drops_the(self, label: str) -> bool:
        return label in self.the_prefix_labels

    def drops_suffix(self, label: str) -> bool:
        return label in self.suffix_labels
