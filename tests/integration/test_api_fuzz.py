"""Schemathesis against a real `graphwire` API process on a throwaway graph: every route and method of the published
OpenAPI schema, generated inputs (examples, coverage, fuzzing and the stateful phase, which posts and deletes
documents), with and without API_KEY. A 5xx, or a response that breaks the published schema, fails the test.

Bounded: a fixed number of examples per operation and a fixed seed, so a run takes a few minutes and repeats.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.api_process import ApiProcess, settings_env
from support.chains import ingest_chains

from graphwire.core.clients.graph import Graph
from graphwire.core.settings import Settings

pytestmark = pytest.mark.integration
KEY = "fuzz-test-key"
MAX_EXAMPLES = 40
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


@pytest.fixture(params=["open", "keyed"])
def api(graph: Graph, neo4j_settings: Settings, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ApiProcess]:
    ingest_chains(graph)  # a throwaway copy: the stateful phase deletes what it finds
    settings = neo4j_settings.model_copy(
        update={
            "chroma_path": tmp_path / "chroma",
            "ingest_state_path": tmp_path / "state",
            "upload_max_bytes": 64_000,
            "upload_max_documents": 20,
            "request_timeout_s": 60.0,
        }  # fmt: skip
    )
    env = settings_env(settings) | ({"API_KEY": KEY} if request.param == "keyed" else {})
    with ApiProcess(env, tmp_path / "api.log") as process:
        process.key = KEY if request.param == "keyed" else None  # type: ignore[attr-defined]
        yield process


def test_no_generated_request_gets_a_5xx_or_breaks_the_schema(api: ApiProcess, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    command = [
        sys.executable, "-m", "schemathesis.cli", "run", f"{api.url}/openapi.json",
        "--checks", CHECKS, "--max-examples", str(MAX_EXAMPLES), "--seed", "0", "--workers", "1",
        "--request-timeout", "60", "--phases", "examples,coverage,fuzzing,stateful",
        "--report", "ndjson", "--report-ndjson-path", str(report), "--no-color",
        # document ids are free text in a path: most generated strings are not valid URL paths and get filtered
        "--suppress-health-check", "filter_too_much",
    ]  # fmt: skip
    key = getattr(api, "key", None)
    if key:
        command += ["--header", f"X-API-Key: {key}"]
    # run in the test's folder: schemathesis keeps a .schemathesis/ cache in its working directory
    run = subprocess.run(command, capture_output=True, text=True, timeout=1200, check=False, cwd=tmp_path)
    summary = run.stdout[-6000:]
    assert run.returncode == 0, f"schemathesis found failures:\n{summary}\n{run.stderr[-2000:]}"
    events = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert events, "schemathesis ran no operation"
    generated = re.search(r"(\d+) generated", summary)
    assert generated and int(generated.group(1)) >= 500, summary  # the bound is real: hundreds of requests
    print(f"schemathesis ({getattr(api, 'key', None) and 'with' or 'without'} API_KEY): {generated.group(0)}")
