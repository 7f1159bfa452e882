"""The OpenAI-compatible surface without Neo4j: the model list, bearer-token auth, and the Sources block format."""

from __future__ import annotations

from datetime import date

from fastapi.testclient import TestClient
from pydantic import SecretStr

from graphwire.app.main import create_app
from graphwire.app.routers.chat import numbered_citations, sources
from graphwire.core.settings import Settings
from graphwire.retrieval.models import Answer, Citation, RankedChunk, RetrievalResult
from graphwire.retrieval.registry import mode_names


def _chunk(chunk_id: str) -> RankedChunk:
    return RankedChunk(chunk_id=chunk_id, document_id="d", title=f"Title {chunk_id}", text="t", score=1.0)


def test_models_name_every_mode_and_accept_the_key_as_a_bearer_token(tmp_path: object) -> None:
    settings = Settings(api_key=SecretStr("s3cret"), neo4j_uri="bolt://127.0.0.1:9", neo4j_password=SecretStr("x"))
    with TestClient(create_app(settings)) as client:
        assert client.get("/v1/models").status_code == 401
        assert client.get("/v1/models", headers={"Authorization": "Bearer wrong"}).status_code == 401
        listed = client.get("/v1/models", headers={"Authorization": "Bearer s3cret"})
        assert listed.status_code == 200
        assert [m["id"] for m in listed.json()["data"]] == [f"graphwire-{name}" for name in mode_names()]
        assert client.get("/v1/models", headers={"X-API-Key": "s3cret"}).status_code == 200


def test_sources_number_citations_by_their_rank_among_the_retrieved_chunks() -> None:
    result = RetrievalResult(mode="graph", chunks=[_chunk("a"), _chunk("b"), _chunk("a"), _chunk("c")])
    answer = Answer(
        text="x [3] and [1]",
        answerer="llm:m",
        citations=[
            Citation(chunk_id="c", title="Title c", publication="Daily", published_at=date(2024, 2, 20)),
            Citation(chunk_id="a", title="Title a", quote="A said x."),
            Citation(chunk_id="z", title="Title z", publication="Weekly"),  # cited but not among the chunks
        ],
    )
    numbered = numbered_citations(answer, result)
    assert [(c.chunk_id, c.number) for c in numbered] == [("c", 3), ("a", 1), ("z", 4)]
    assert sources(numbered) == (
        '\n\nSources:\n[3] Title c (Daily, 2024-02-20)\n[1] Title a\n    "A said x."\n[4] Title z (Weekly)'
    )
    assert sources([]) == ""
