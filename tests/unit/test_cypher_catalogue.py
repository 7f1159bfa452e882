"""The Cypher catalogue: statements by file name, from the product's cypher/ and the tests' tests/support/cypher/."""

from pathlib import Path

import pytest
from support.statements import TESTS_CYPHER

from graphwire import cypher


def _write(root: Path, name: str, text: str) -> None:
    path = root / f"{name}.cypher"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")


def test_statements_are_named_by_path_and_read_from_every_folder(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    _write(first, "schema/02_second", "RETURN 2")
    _write(first, "schema/01_first", "RETURN 1")
    _write(second, "check/extra", "RETURN 3")
    catalogue = cypher.Catalogue(first).with_folder(second)
    assert catalogue.query("check/extra") == "RETURN 3"
    assert [n for n, _ in catalogue.statements_in("schema")] == ["schema/01_first", "schema/02_second"]
    with pytest.raises(cypher.CypherNotFoundError, match="schema/03"):
        catalogue.query("schema/03")


def test_a_name_in_two_folders_is_refused(tmp_path: Path) -> None:
    _write(tmp_path / "a", "admin/wipe", "RETURN 1")
    _write(tmp_path / "b", "admin/wipe", "RETURN 2")
    with pytest.raises(ValueError, match="admin/wipe"):
        cypher.Catalogue(tmp_path / "a", tmp_path / "b").names()


def test_the_product_catalogue_holds_no_test_statements() -> None:
    test_names = set(cypher.Catalogue(TESTS_CYPHER).names())
    assert {"fixture/entities", "check/constraints"} <= test_names
    assert not test_names & set(cypher.names())
    assert not any("fixture" in name for name in cypher.names())
