"""The Chroma chunk store, in a temporary folder and on a Chroma server (`chroma run`): round trip, reopen in a fresh
process, delete, revision marker."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from support.chroma_server import on_chroma

from graphwire.core.clients.chunk_store import ChunkStore
from graphwire.core.clients.embeddings import EmbeddingError
from graphwire.core.clients.openai_embedder import OpenAIEmbedder
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings

TEXTS = {
    "fed": [
        "The Federal Reserve raised interest rates by a quarter point.",
        "Mortgage costs climbed after the decision.",
    ],
    "derby": ["The striker scored twice in the north London derby.", "Arsenal moved to the top of the league."],
}


def _chunks() -> list[Chunk]:
    return [
        Chunk(
            id=f"{doc}:{i}",
            document_id=doc,
            index=i,
            text=text,
            title=f"{doc} story",
            source="CNBC | World Business News Leader" if doc == "fed" else None,
            published_at=date(2023, 10, 2) if doc == "fed" else None,
        )
        for doc, texts in TEXTS.items()
        for i, text in enumerate(texts)
    ]


@pytest.fixture(params=["folder", "server"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    return on_chroma(request.param, Settings(chroma_path=tmp_path / "chroma", chroma_collection="test_chunks"), request)


def test_round_trip_query_and_delete(settings: Settings) -> None:
    store = ChunkStore.from_settings(settings)
    before = store.revision()
    assert store.upsert(_chunks()) == 4
    assert store.count() == 4
    assert store.revision() != before

    assert store.get_all() == sorted(_chunks(), key=lambda c: (c.document_id, c.index))
    assert store.query("football goal", 1)[0][0].startswith("derby:")
    top_fed = store.query("interest rate hike by the central bank", 4)
    assert top_fed[0][0] == "fed:0" and top_fed[0][1] > top_fed[-1][1]
    assert [cid for cid, _ in store.query("football", 5, chunk_ids=["fed:0", "fed:1"])] in (
        ["fed:0", "fed:1"],
        ["fed:1", "fed:0"],
    )
    assert len(store.query("football", 10)) == 4  # more asked than stored: all of them, no error

    store.upsert(_chunks()[:1])  # same id: replaced, not duplicated
    assert store.count() == 4
    after_write = store.revision()
    assert store.delete_document("fed") == 2
    assert store.delete_document("missing") == 0
    assert store.count() == 2
    assert store.revision() != after_write
    assert {c.document_id for c in store.get_all()} == {"derby"}
    store.delete_document("derby")
    assert store.query("football", 10) == []  # an emptied collection answers nothing, no error


def test_reopens_in_a_fresh_process(settings: Settings) -> None:
    ChunkStore.from_settings(settings).upsert(_chunks())
    script = (
        "import json, sys\n"
        "from graphwire.core.clients.chunk_store import ChunkStore\n"
        "from graphwire.core.settings import Settings\n"
        "store = ChunkStore.from_settings(Settings.model_validate_json(sys.argv[1]))\n"
        "fed = [c for c in store.get_all() if c.document_id == 'fed'][0]\n"
        "hits = store.collection.query(query_texts=['a footballer scoring two goals'], n_results=1)['ids'][0]\n"
        "seen = {'count': store.count(), 'source': fed.source, 'date': str(fed.published_at), 'top': hits}\n"
        "print(json.dumps(seen))\n"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            settings.model_dump_json(include={"chroma_path", "chroma_host", "chroma_port", "chroma_collection"}),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    # query_texts goes through the persisted graphwire embedding function, never Chroma's downloading default
    assert seen == {"count": 4, "source": "CNBC | World Business News Leader", "date": "2023-10-02", "top": ["derby:0"]}


def test_refuses_a_collection_built_with_another_embedder(settings: Settings) -> None:
    store = ChunkStore.from_settings(settings)
    other = OpenAIEmbedder(model="text-embedding-3-small", client=object())
    with pytest.raises(EmbeddingError, match="re-ingest"):
        ChunkStore(store.client, settings.chroma_collection, other)
