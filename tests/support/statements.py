"""The Cypher the tests run besides the product's, in tests/support/cypher/: fixtures that write a corpus directly,
and checks that read back what the product wrote. Its names never overlap the product's (the catalogue refuses a name
found in both)."""

from __future__ import annotations

from pathlib import Path

from graphwire import cypher

TESTS_CYPHER = Path(__file__).resolve().parent / "cypher"
TEST_CATALOGUE = cypher.PRODUCT.with_folder(TESTS_CYPHER)
