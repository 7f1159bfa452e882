"""`graphwire llm check` and `graphwire llm failures` against the stub server and a temporary cache."""

from __future__ import annotations

import json
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


SAMPLE_REPLY = {
    "entities": [
        {"name": "Marta Olsen", "label": "Person"},
        {"name": "Harbor Freight Analytics", "label": "Organization"},
    ],
    "relationships": [{"source": "Marta Olsen", "type": "CEO_OF", "target": "Harbor Freight Analytics"}],
}


def test_check_tries_every_mode_and_recommends_one_that_passed(env: Path, openai_stub: OpenAIStub) -> None:
    # warm-up, then json_schema (prose: fails), tools (a good call), prompt (JSON that needs repair: not a pass)
    openai_stub.script(text("OK"), text("Sorry, no."), tool_call(SAMPLE_REPLY), text(json.dumps(SAMPLE_REPLY)[:-2]))
    result = CliRunner().invoke(app, ["llm", "check"])
    assert result.exit_code == 0, result.output
    bodies = [r.body for r in openai_stub.chat_requests]
    assert bodies[1]["response_format"]["type"] == "json_schema"
    assert bodies[2]["tool_choice"]["function"]["name"] == "record_graph"
    assert "tools" not in bodies[3] and "response_format" not in bodies[3]
    assert "Harbor Freight Analytics" in openai_stub.chat_requests[1].message_text("user")  # the schema's sample
    assert "recommended: LLM_EXTRACTION_MODE=tools" in result.output
    assert "suggested: LLM_TIMEOUT_S=" in result.output and "REQUEST_TIMEOUT_S=" in result.output


def test_check_fails_when_no_mode_gives_valid_output(env: Path, openai_stub: OpenAIStub) -> None:
    openai_stub.fallback = StubReply(status=401, body={"error": {"message": "bad key"}})
    result = CliRunner().invoke(app, ["llm", "check"])
    assert result.exit_code == 1 and "no mode gave valid output" in result.output
    assert "AuthenticationError" in result.output


def test_check_takes_a_sample_file(env: Path, openai_stub: OpenAIStub, tmp_path: Path) -> None:
    sample = tmp_path / "sample.txt"
    sample.write_text("Marta Olsen is the CEO of Harbor Freight Analytics.", encoding="utf-8")
    openai_stub.fallback = text(json.dumps(SAMPLE_REPLY))
    result = CliRunner().invoke(app, ["llm", "check", "--sample", str(sample)])
    assert result.exit_code == 0, result.output
    assert "recommended: LLM_EXTRACTION_MODE=" in result.output and "failed" not in result.output
    assert sample.read_text() in openai_stub.chat_requests[-1].message_text("user")


def test_failures_lists_and_clears(env: Path) -> None:
    ExtractionCache(env).record_failure("chunk-1", "doc-1", "RetriesExhausted: timeout", attempts=5)
    listed = CliRunner().invoke(app, ["llm", "failures"])
    assert listed.exit_code == 0 and "chunk-1" in listed.output and "doc-1" in listed.output
    cleared = CliRunner().invoke(app, ["llm", "failures", "--clear"])
    assert "cleared 1" in cleared.output
    assert ExtractionCache(env).failed_chunk_ids() == set()
