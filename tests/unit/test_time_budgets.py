"""Time budgets compose: the LLM timeout must fit in the request deadline, and a retry never outlives the deadline."""

from __future__ import annotations

import openai
import pytest
from pydantic import ValidationError

from graphwire.core.clients.llm_retry import RetriesExhausted, RetryPolicy, with_retries
from graphwire.core.deadline import Deadline
from graphwire.core.settings import Settings

LLM = {"llm_base_url": "http://127.0.0.1:9/v1", "llm_model": "m"}


def test_an_llm_timeout_not_shorter_than_the_request_deadline_is_a_startup_error_naming_both() -> None:
    with pytest.raises(ValidationError) as error:
        Settings(**LLM, llm_timeout_s=180.0, request_timeout_s=180.0)  # type: ignore[arg-type]
    assert "LLM_TIMEOUT_S (180 s)" in str(error.value) and "REQUEST_TIMEOUT_S (180 s)" in str(error.value)
    Settings(**LLM, llm_timeout_s=120.0, request_timeout_s=180.0)  # type: ignore[arg-type]
    Settings(llm_timeout_s=600.0, request_timeout_s=1.0)  # no LLM configured: nothing to compose


def test_the_defaults_compose() -> None:
    settings = Settings(**LLM)  # type: ignore[arg-type]
    assert settings.cypher_timeout_s < settings.request_timeout_s
    assert settings.llm_timeout_s < settings.request_timeout_s


def test_a_deadline_caps_what_a_step_may_take() -> None:
    deadline = Deadline.after(5.0)
    assert 0 < deadline.cap(60.0) <= 5.0 and deadline.cap(1.0) == 1.0 and not deadline.expired
    assert Deadline.after(-1.0).remaining() == 0.0 and Deadline.after(-1.0).expired


def test_no_retry_is_started_that_the_deadline_would_cut() -> None:
    calls: list[int] = []
    slept: list[float] = []

    def failing() -> None:
        calls.append(1)
        raise openai.APIConnectionError(request=None)  # type: ignore[arg-type]

    policy = RetryPolicy(max_retries=5, backoff_base_s=10.0, backoff_max_s=30.0)
    with pytest.raises(RetriesExhausted):
        with_retries(failing, policy, sleep=slept.append, deadline=Deadline.after(5.0))
    assert (len(calls), slept) == (1, [])  # the first backoff (8-10 s) would pass the deadline: no second attempt
    calls.clear()
    with pytest.raises(RetriesExhausted):
        with_retries(failing, policy, sleep=slept.append)
    assert len(calls) == 6  # without a deadline: every retry


def test_the_cli_refuses_a_budget_that_does_not_compose_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from graphwire.cli.main import app
    from graphwire.core.settings import get_settings

    for name, value in {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "m", "LLM_TIMEOUT_S": "500"}.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["llm", "failures"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 2
    assert "error: configuration: LLM_TIMEOUT_S (500 s) must be shorter than REQUEST_TIMEOUT_S (180 s)" in result.output
    assert "Traceback" not in result.output
