"""`graphwire llm check` and `graphwire llm failures` against the stub server and a temporary cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.openai_stub import OpenAIStub, StubReply, text, tool_call
from typer.testing import CliRunner

from graphwire.cli.main import app
from graphwire.core.settings import get_settings
from graphwire.ingest.extraction_cache import ExtractionCache


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, openai_stub: OpenAIStub, tmp_path: Path) -> Iterator[Path]:
    cache = tmp_path / "extractions.sqlite"
    monkeypatch.setenv("LLM_BASE_URL", openai_stub.base_url)
    monkeypatch.setenv("LLM_MODEL", "stub-model")
    monkeypatch.setenv("LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("EXTRACTION_CACHE_PATH", str(cache))
    get_settings.cache_clear()
    yield cache
    get_settings.cache_clear()


def test_check_reports_tool_support(env: Path, openai_stub: OpenAIStub) -> None:
    openai_stub.script(text("OK"), tool_call({"city": "Paris"}))
    result = CliRunner().invoke(app, ["llm", "check"])
    assert result.exit_code == 0, result.output
    assert "chat: ok" in result.output and "tool calling: ok" in result.output
    assert openai_stub.chat_requests[1].body["tool_choice"]["function"]["name"] == "record_city"


def test_check_recommends_prompt_mode_without_tools(env: Path, openai_stub: OpenAIStub) -> None:
    openai_stub.script(text("OK"), text("Paris"))
    result = CliRunner().invoke(app, ["llm", "check"])
    assert "tool calling: not supported" in result.output
    assert "LLM_EXTRACTION_MODE=prompt" in result.output


def test_check_fails_when_the_endpoint_fails(env: Path, openai_stub: OpenAIStub) -> None:
    openai_stub.script(StubReply(status=401, body={"error": {"message": "bad key"}}))
    result = CliRunner().invoke(app, ["llm", "check"])
    assert result.exit_code == 1 and "chat failed" in result.output


def test_failures_lists_and_clears(env: Path) -> None:
    ExtractionCache(env).record_failure("chunk-1", "doc-1", "RetriesExhausted: timeout", attempts=5)
    listed = CliRunner().invoke(app, ["llm", "failures"])
    assert listed.exit_code == 0 and "chunk-1" in listed.output and "doc-1" in listed.output
    cleared = CliRunner().invoke(app, ["llm", "failures", "--clear"])
    assert "cleared 1" in cleared.output
    assert ExtractionCache(env).failed_chunk_ids() == set()
