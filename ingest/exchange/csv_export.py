"""An export file as the CSV layout `neo4j-admin database import full` reads: one nodes file per label and one
relationships file per (type, start kind, end kind), with typed headers, and the command that imports them.

Nodes files: `<key property>:ID(<kind>)` (each kind is its own id space: an entity's key, a document's or chunk's
id, a day's date), `:LABEL` (`Entity` and the schema label for an entity) and one typed column per property.
Relationships files: `:START_ID(<kind>)`, `:END_ID(<kind>)`, `:TYPE` and the properties. Every value is quoted, an
absent one is empty; list elements (and an entity's two labels) are separated by U+001F (`--array-delimiter`), so
commas and semicolons in evidence stay text. An empty list cannot be written in this layout: the importer leaves such
a property out.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphwire.ingest.exchange.models import IDENTITY, kind_of

ARRAY_DELIMITER = "\x1f"
COMMAND_FILE = "import.sh"
_NAME = re.compile(r"[^A-Za-z0-9_]")


@dataclass
class CsvFile:
    """One CSV file: its fixed columns, the property columns seen with their types, its rows' count."""

    path: str  # relative to the export folder
    fixed: list[str]
    types: dict[str, str] = field(default_factory=dict)
    rows: int = 0

    def header(self) -> list[str]:
        typed = {name: "string[]" if kind == "[]" else kind for name, kind in self.types.items()}  # only empty lists
        return [*self.fixed, *(f"{name}:{typed[name]}" for name in sorted(typed))]


def write_csv(lines: Callable[[], Iterable[dict[str, Any]]], folder: Path, database: str = "neo4j") -> list[str]:
    """Write the export's node and relationship lines (`lines()` is read twice: types, then rows) as CSV files under
    `folder`, and `import.sh` with the neo4j-admin command; returns that command."""
    files: dict[str, CsvFile] = {}
    for line in lines():
        csv_file = _file_of(files, line)
        for name, value in _properties(line).items():
            csv_file.types[name] = _merge(csv_file.types.get(name), _type_of(value))
    folder.mkdir(parents=True, exist_ok=True)
    handles = {}
    try:
        for name, csv_file in sorted(files.items()):
            (folder / csv_file.path).parent.mkdir(parents=True, exist_ok=True)
            handles[name] = (folder / csv_file.path).open("w", encoding="utf-8", newline="")
            handles[name].write(",".join(_quote(h) for h in csv_file.header()) + "\n")
        for line in lines():
            csv_file = _file_of(files, line)
            props = _properties(line)
            row = [*_fixed_values(line), *(_cell(props.get(n), csv_file.types[n]) for n in sorted(csv_file.types))]
            handles[csv_file.path].write(",".join(_quote(cell) for cell in row) + "\n")
            csv_file.rows += 1
    finally:
        for handle in handles.values():
            handle.close()
    command = import_command(sorted(files.values(), key=lambda f: f.path), database)
    (folder / COMMAND_FILE).write_text("#!/bin/sh\n# run from this folder, with the database stopped\n" +
                                       " ".join(command) + "\n", encoding="utf-8")  # fmt: skip
    return command


def import_command(files: list[CsvFile], database: str = "neo4j") -> list[str]:
    """`neo4j-admin database import full` over the files, run from the export folder."""
    command = ["neo4j-admin", "database", "import", "full", database, "--overwrite-destination=true",
               "--array-delimiter=U+001F", "--multiline-fields=true", "--id-type=STRING"]  # fmt: skip
    for csv_file in files:
        option = "--nodes" if csv_file.path.startswith("nodes/") else "--relationships"
        command.append(f"{option}={shlex.quote(csv_file.path)}")
    return command


def _file_of(files: dict[str, CsvFile], line: dict[str, Any]) -> CsvFile:
    if line["kind"] == "node":
        kind = kind_of(line["label"])
        path = f"nodes/{_safe(line['label'])}.csv"
        fixed = [f"{IDENTITY[kind]}:ID({kind})", ":LABEL"]
    else:
        start, end = kind_of(line["start"]["label"]), kind_of(line["end"]["label"])
        path = f"relationships/{_safe(line['type'])}-{start}-{end}.csv"
        fixed = [f":START_ID({start})", f":END_ID({end})", ":TYPE"]
    return files.setdefault(path, CsvFile(path, fixed))


def _properties(line: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = line["properties"]
    if line["kind"] == "node":
        identity = IDENTITY[kind_of(line["label"])]
        return {k: v for k, v in props.items() if k != identity}  # the :ID column stores it
    return props


def _fixed_values(line: dict[str, Any]) -> list[str]:
    if line["kind"] == "node":
        kind = kind_of(line["label"])
        labels = "Entity" + ARRAY_DELIMITER + line["label"] if kind == "Entity" else kind  # :LABEL is a list too
        return [line["key"], labels]
    return [line["start"]["key"], line["end"]["key"], line["type"]]


def _type_of(value: Any) -> str:
    if isinstance(value, list):
        inner = {_type_of(v) for v in value}
        if not inner:
            return "[]"
        return (inner.pop() if len(inner) == 1 else _merge(*sorted(inner))) + "[]"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    return "string"


def _merge(old: str | None, new: str) -> str:
    """The column type of two values' types: the same, long and double as double, an empty list as any list."""
    if old is None or old == new:
        return new
    if {old, new} == {"long", "double"} or {old, new} == {"long[]", "double[]"}:
        return "double[]" if old.endswith("[]") else "double"
    if old == "[]" and new.endswith("[]"):
        return new
    if new == "[]" and old.endswith("[]"):
        return old
    return "string"  # mixed kinds: the value's JSON text


def _cell(value: Any, column: str) -> str | None:
    if value is None or value == []:
        return None
    if column == "string" and not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return ARRAY_DELIMITER.join(_scalar(v) for v in value)
    return _scalar(value)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if not isinstance(value, float) else repr(value)


def _quote(cell: str | None) -> str:
    return "" if cell is None else '"' + cell.replace('"', '""') + '"'


def _safe(name: str) -> str:
    return _NAME.sub("_", name)
