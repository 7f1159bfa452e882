"""Every product statement runs in the kind of transaction its clauses need (a read on a cluster's secondaries, a write
on its leader): each call site that names a statement in the product code, parsed with `ast`, uses the facade method
of the matching kind. The call sites that compute the name are listed here; tests/integration/test_transaction_kinds.py
runs them (and every other statement a realistic flow runs) against a real Neo4j and checks the kinds they ran in."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from support.statement_kinds import kind_of

from graphwire import cypher
from graphwire.core.clients.graph import READ, WRITE, Access

REPO = Path(__file__).resolve().parents[2]
PRODUCT = ["app", "cli", "core", "eval", "ingest", "retrieval", "schema", "graphwire/client.py"]
FACADE = REPO / "core" / "clients" / "graph.py"
METHODS: dict[str, Access] = {"read": READ, "read_each": READ, "write": WRITE, "write_batches": WRITE,
                              "write_once": WRITE}  # fmt: skip
# where the statement's name is computed, not written out: test_transaction_kinds.py (integration) runs each of them
DYNAMIC = {
    ("core/stores/bootstrap.py", "apply_schema", "write"),  # every statement under cypher/schema/
    ("ingest/exchange/reader.py", "read_graph", "read"),  # exchange/<kind>s_page
    ("ingest/exchange/writer.py", "write", "_batches"),  # exchange/import_<kind>s
    ("retrieval/paths.py", "shortest_path", "read"),  # graph/shortest_path_<hops>
}


@dataclass(frozen=True)
class Site:
    path: str
    function: str
    method: str
    statement: str | None  # None: the name is computed


def _python_files() -> Iterator[Path]:
    for entry in PRODUCT:
        path = REPO / entry
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def _method(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _receiver(call: ast.Call) -> str:
    return ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else ""


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _calls(tree: ast.Module) -> Iterator[tuple[Function | None, ast.Call]]:
    """Every call, with the innermost function around it."""

    def visit(node: ast.AST, function: Function | None) -> Iterator[tuple[Function | None, ast.Call]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call):
                yield function, child
            yield from visit(child, child if isinstance(child, Function) else function)

    yield from visit(tree, None)


def _forwards_a_parameter(function: Function | None, call: ast.Call) -> bool:
    first = call.args[0] if call.args else None
    return function is not None and isinstance(first, ast.Name) and first.id in {a.arg for a in function.args.args}


def scan() -> tuple[dict[str, Access], list[Site]]:
    """The kind of each statement method (the facade's, and the product's wrappers: functions that pass a parameter
    on to one of them as the statement's name) and every call of one in the product code, with the statement it names
    when that is a string constant."""
    names = set(cypher.names())
    parsed = [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in _python_files() if path != FACADE]
    methods = dict(METHODS)
    for _, tree in parsed:
        for function, call in _calls(tree):
            if (
                _method(call) in METHODS
                and "graph" in _receiver(call).lower()
                and _forwards_a_parameter(function, call)
            ):
                methods[function.name] = METHODS[_method(call)]  # type: ignore[union-attr]
    sites = []
    for path, tree in parsed:
        for function, call in _calls(tree):
            method, first = _method(call), call.args[0] if call.args else None
            wrapper = method not in METHODS
            if method not in methods or (function is not None and function.name in methods and not wrapper
                                         and _forwards_a_parameter(function, call)):  # fmt: skip
                continue  # not a statement method, or a wrapper passing its parameter on
            where = (path.relative_to(REPO).as_posix(), function.name if function else "<module>", method)
            if isinstance(first, ast.Constant) and first.value in names:
                sites.append(Site(*where, statement=str(first.value)))
            elif wrapper or "graph" in _receiver(call).lower():
                sites.append(Site(*where, statement=None))
    return methods, sites


def test_the_classifier_reads_clauses_not_words() -> None:
    assert kind_of("MATCH (n:Entity {key: $key}) RETURN n.name AS name") == READ
    assert kind_of("MATCH (n) WHERE n.note = 'SET by DELETE' RETURN n.created AS created // MERGE later") == READ
    assert kind_of("MATCH (n) RETURN n.`remove` AS x /* CREATE */") == READ
    assert kind_of("MATCH (n:Entity) WHERE n.key = $key\nSET n.name = $name") == WRITE
    assert kind_of("MATCH (n) CALL (n) { DETACH DELETE n } IN 500 ROWS OF TRANSACTIONS") == WRITE
    assert (
        kind_of("UNWIND $rows AS row CALL (row) { MATCH (n {id: row.id}) RETURN n } IN TRANSACTIONS RETURN 1") == WRITE
    )
    assert kind_of("CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE e.key IS UNIQUE") == WRITE
    assert kind_of("MATCH (c:Chunk {id: $id}) CALL db.create.setNodeVectorProperty(c, 'v', $v)") == WRITE


def test_the_product_statements_fall_in_the_kinds_their_folders_say() -> None:
    statements = {name: kind_of(cypher.query(name)) for name in cypher.names()}
    assert {statements[n] for n in statements if n.startswith("schema/")} == {WRITE}
    assert {statements[n] for n in statements if n.startswith(("retrieve/", "browser/", "graph/"))} == {READ}
    assert statements["store/take_writer_lease"] == statements["store/bump_version"] == WRITE
    assert statements["admin/await_indexes"] == statements["store/read_version"] == READ


def test_every_named_call_site_uses_the_kind_its_statement_needs() -> None:
    methods, found = scan()
    sites = [s for s in found if s.statement is not None]
    wrong = [s for s in sites if methods[s.method] != kind_of(cypher.query(str(s.statement)))]
    assert wrong == []
    assert len(sites) > 50 and {methods[s.method] for s in sites} == {READ, WRITE}  # the parse found the calls


def test_the_call_sites_that_compute_a_name_are_the_known_ones() -> None:
    computed = {(s.path, s.function, s.method) for s in scan()[1] if s.statement is None}
    assert computed == DYNAMIC
