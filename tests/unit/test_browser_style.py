"""docs/browser/graphwire.grass: every node label graphwire writes gets a caption from a property it really sets
(Document, Chunk and Organization nodes used to share the caption of a title)."""

import re
from pathlib import Path

from graphwire.schema.model import load_schema

ROOT = Path(__file__).resolve().parents[2]
GRASS = ROOT / "docs" / "browser" / "graphwire.grass"
INGEST_CYPHER = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "cypher" / "ingest").glob("*.cypher"))


def _rules() -> dict[str, dict[str, str]]:
    rules = {}
    for selector, body in re.findall(r"^([\w.]+) \{\n(.*?)\n\}", GRASS.read_text(encoding="utf-8"), re.S | re.M):
        rules[selector] = dict(re.findall(r"([\w-]+):\s*([^;]+);", body))
    return rules


def test_every_label_has_its_own_caption_and_colour() -> None:
    rules = _rules()
    labels = [*load_schema().labels, "Document", "Chunk", "Date", "Entity"]
    for label in labels:
        assert "caption" in rules[f"node.{label}"], label
    captions = {label: rules[f"node.{label}"]["caption"] for label in ("Document", "Chunk", "Organization")}
    assert len(set(captions.values())) == 3, captions
    colours = {rules[f"node.{label}"]["color"] for label in ("Document", "Chunk", "Date", "Person", "Organization")}
    assert len(colours) == 5


def test_captions_name_properties_the_ingest_writes() -> None:
    for selector, rule in _rules().items():
        for prop in re.findall(r"\{(\w+)\}", rule.get("caption", "")):
            assert re.search(rf"\b{prop}:|\.{prop} =", INGEST_CYPHER), (selector, prop)  # CREATE {p: ..} or SET n.p =
