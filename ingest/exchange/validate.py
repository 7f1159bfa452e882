"""Check an import file before anything is written: its header, every line's shape, labels, relationship types and
(start label, type, end label) patterns against the schema, and that every relationship's ends are in the file or
in the store. Every problem is reported with its line number; a file with any is refused as a whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel, ValidationError

from graphwire.core.access import AccessError, validate_access
from graphwire.core.clients.graph import Graph
from graphwire.ingest.exchange.models import (
    FORMAT,
    FORMAT_VERSION,
    IDENTITY,
    LAYER_KINDS,
    Counts,
    Endpoint,
    ExchangeError,
    Header,
    LineError,
    NodeLine,
    RelationshipLine,
    kind_of,
)
from graphwire.schema.model import GraphSchema

MAX_ERRORS = 100  # an import's errors listed at most; the message says when there were more
LOOKUP_BATCH = 5000
STRUCTURE = {  # the relationships graphwire writes between its own layers, and the entities a chunk mentions
    ("Document", "HAS_CHUNK", "Chunk"),
    ("Document", "PUBLISHED_ON", "Date"),
    ("Date", "NEXT_DAY", "Date"),
}


@dataclass
class Plan:
    """A checked file: its node and relationship lines, in file order."""

    lines: int = 0
    header: Header | None = None
    nodes: list[NodeLine] = field(default_factory=list)
    relationships: list[RelationshipLine] = field(default_factory=list)


class Validator:
    def __init__(self, schema: GraphSchema, graph: Graph) -> None:
        self.schema = schema
        self.graph = graph
        self.errors: list[LineError] = []
        self.error_count = 0

    def check(self, lines: Iterable[str]) -> Plan:
        """The file's lines as a plan, or ExchangeError with every problem by line."""
        plan = Plan()
        node_lines: dict[tuple[str, str], tuple[int, str]] = {}  # (kind, key) -> (line, label)
        rel_lines: dict[tuple[str, str, str, str, str], int] = {}
        wanted: list[tuple[int, str, Endpoint]] = []  # ends to find in the store, with their line and role
        for number, text in enumerate(lines, start=1):
            plan.lines = number
            if number == 1:
                plan.header = self._header(text)
                continue
            if not text.strip():
                continue
            line = self._parse(number, text)
            if isinstance(line, NodeLine) and self._node_ok(number, line):
                identity = (kind_of(line.label), line.key)
                if identity in node_lines:
                    self._error(
                        number, f"node {line.label} {line.key!r} again (first on line {node_lines[identity][0]})"
                    )
                node_lines.setdefault(identity, (number, line.label))
                plan.nodes.append(line)
            elif isinstance(line, RelationshipLine) and self._relationship_ok(number, line):
                identity_r = (
                    kind_of(line.start.label),
                    line.start.key,
                    line.type,
                    kind_of(line.end.label),
                    line.end.key,
                )
                if identity_r in rel_lines:
                    self._error(number, f"relationship {_describe(line)} again (first on line {rel_lines[identity_r]})")
                rel_lines.setdefault(identity_r, number)
                wanted += [(number, "start", line.start), (number, "end", line.end)]
                plan.relationships.append(line)
        if plan.lines == 0:
            self._error(1, "the file is empty: an import file starts with its header line")
        self._check_counts(plan)
        self._check_ends(node_lines, wanted)
        if self.error_count:
            self.errors.sort(key=lambda error: error.line)  # the checks of ends come last; a reader wants file order
            listed = f", the first {len(self.errors)} listed" if self.error_count > len(self.errors) else ""
            raise ExchangeError(f"the import file has {self.error_count} error(s){listed}, nothing was written; "
                                f"{self.errors[0]}", self.errors)  # fmt: skip
        return plan

    def _error(self, line: int, message: str) -> None:
        self.error_count += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(LineError(line=line, message=message))

    def _json(self, number: int, text: str) -> dict[str, object] | None:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self._error(number, f"not JSON: {exc.msg} at column {exc.colno}")
            return None
        if not isinstance(data, dict):
            self._error(number, "not a JSON object")
            return None
        return data

    def _model(self, number: int, model: type[BaseModel], data: dict[str, object]) -> BaseModel | None:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            self._error(number, f"{where}: {first['msg']}" if where else str(first["msg"]))
            return None

    def _header(self, text: str) -> Header | None:
        data = self._json(1, text)
        if data is None:
            return None
        if data.get("kind") != "header" or data.get("format") != FORMAT:
            self._error(1, f"the first line must be the header of a {FORMAT} file (kind 'header', format {FORMAT!r})")
            return None
        if data.get("version") != FORMAT_VERSION:
            self._error(1, f"format version {data.get('version')!r} is not supported (this graphwire reads "
                           f"version {FORMAT_VERSION})")  # fmt: skip
            return None
        header = self._model(1, Header, data)
        if isinstance(header, Header) and header.schema_.name != self.schema.name:
            self._error(1, f"the file holds a graph of schema {header.schema_.name!r}; the store's is "
                           f"{self.schema.name!r}")  # fmt: skip
        return header if isinstance(header, Header) else None

    def _parse(self, number: int, text: str) -> NodeLine | RelationshipLine | None:
        data = self._json(number, text)
        if data is None:
            return None
        models: dict[object, type[BaseModel]] = {"node": NodeLine, "relationship": RelationshipLine}
        model = models.get(data.get("kind"))
        if model is None:
            self._error(number, f"kind is {data.get('kind')!r}: a line after the header is a node or a relationship")
            return None
        line = self._model(number, model, data)
        return line if isinstance(line, NodeLine | RelationshipLine) else None

    def _known(self, number: int, label: str) -> bool:
        if label in LAYER_KINDS or label in self.schema.node_labels:
            return True
        self._error(number, f"unknown label {label!r} (the schema's labels: {', '.join(self.schema.labels)}; "
                            f"and {', '.join(LAYER_KINDS)})")  # fmt: skip
        return False

    def _node_ok(self, number: int, line: NodeLine) -> bool:
        if not self._known(number, line.label):
            return False
        kind = kind_of(line.label)
        identity = IDENTITY[kind]
        ok = True
        if identity in line.properties and line.properties[identity] != line.key:
            self._error(number, f"properties.{identity} is {line.properties[identity]!r}, the key {line.key!r}")
            ok = False
        if kind == "Entity" and line.properties.get("label", line.label) != line.label:
            self._error(number, f"properties.label is {line.properties['label']!r}, the line's label {line.label!r}")
            ok = False
        if kind in ("Document", "Chunk") and line.properties.get("access") is not None:
            try:  # retrieval reads it as a list of names (docs/security.md)
                validate_access(line.properties["access"])  # type: ignore[arg-type]
            except AccessError as exc:
                self._error(number, f"properties.access: {exc}")
                ok = False
        return ok

    def _relationship_ok(self, number: int, line: RelationshipLine) -> bool:
        if not (self._known(number, line.start.label) & self._known(number, line.end.label)):
            return False
        if not self._allowed(line):
            known = line.type in self.schema.relationship_types or any(line.type == t for _, t, _ in STRUCTURE)
            what = "is not allowed by the schema" if known or line.type == "MENTIONS" else "has an unknown type"
            self._error(number, f"relationship {_describe(line)} {what}")
            return False
        chunk_ids, evidence = line.properties.get("chunk_ids"), line.properties.get("evidence")
        if isinstance(chunk_ids, list) and isinstance(evidence, list) and len(chunk_ids) != len(evidence):
            self._error(number, f"evidence has {len(evidence)} entries and chunk_ids {len(chunk_ids)}: they are "
                                "parallel lists")  # fmt: skip
            return False
        return True

    def _allowed(self, line: RelationshipLine) -> bool:
        start, end = line.start.label, line.end.label
        if (start, line.type, end) in STRUCTURE:
            return True
        if line.type == "MENTIONS":
            return start == "Chunk" and end in self.schema.node_labels
        roles = self.schema.roles
        if start == "Document" and line.type == roles.reported_by_type and end == roles.publisher_label:
            return True
        return self.schema.allows(start, line.type, end)

    def _check_counts(self, plan: Plan) -> None:
        if plan.header is None or plan.header.counts is None:
            return
        found = Counts()
        for node in plan.nodes:
            found.nodes[node.label] = found.nodes.get(node.label, 0) + 1
        for rel in plan.relationships:
            found.relationships[rel.type] = found.relationships.get(rel.type, 0) + 1
        for what, said, seen in (("node", plan.header.counts.nodes, found.nodes),
                                 ("relationship", plan.header.counts.relationships, found.relationships)):  # fmt: skip
            for name in sorted(set(said) | set(seen)):
                if said.get(name, 0) != seen.get(name, 0):
                    self._error(1, f"the header counts {said.get(name, 0)} {name} {what} lines, the file holds "
                                   f"{seen.get(name, 0)} valid ones")  # fmt: skip

    def _check_ends(
        self, in_file: dict[tuple[str, str], tuple[int, str]], wanted: list[tuple[int, str, Endpoint]]
    ) -> None:
        """Every end is a node of the file or of the store, with the label the line gives it; an entity of the file
        that the store has already keeps its label."""
        lookups = {
            (kind_of(end.label), end.key) for _, _, end in wanted if (kind_of(end.label), end.key) not in in_file
        }
        lookups |= {identity for identity in in_file if identity[0] == "Entity"}
        stored = self._stored(sorted(lookups))
        for identity, (number, label) in in_file.items():
            if identity in stored and stored[identity] != label:
                self._error(number, f"entity {identity[1]!r} is a {stored[identity]} in the store, the file says "
                                    f"{label}")  # fmt: skip
        for number, role, end in wanted:
            identity = (kind_of(end.label), end.key)
            found = in_file[identity][1] if identity in in_file else stored.get(identity)
            if found is None:
                self._error(number, f"the {role} node {end.label} {end.key!r} is neither in the file nor in the store")
            elif found != end.label:
                self._error(number, f"the {role} node {end.key!r} is a {found}, the line says {end.label}")

    def _stored(self, identities: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        found: dict[tuple[str, str], str] = {}
        for start in range(0, len(identities), LOOKUP_BATCH):
            batch = [{"kind": kind, "key": key} for kind, key in identities[start : start + LOOKUP_BATCH]]
            for row in self.graph.read("exchange/existing_nodes", nodes=batch):
                found[(row["kind"], row["key"])] = str(row["label"])
        return found


def _describe(line: RelationshipLine) -> str:
    return f"{line.type} from {line.start.label} {line.start.key!r} to {line.end.label} {line.end.key!r}"
