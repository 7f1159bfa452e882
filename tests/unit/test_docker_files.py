"""`docker compose config` needs the compose plugin, which these machines lack: check the structure instead."""

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    return data


def _interpolated_vars(text: str) -> set[str]:
    return set(re.findall(r"(?<!\$)\$\{([A-Z_][A-Z0-9_]*)", text))


def test_neo4j_service(compose: dict[str, Any]) -> None:
    neo4j = compose["services"]["neo4j"]
    assert neo4j["image"] == "neo4j:5.26-community"
    assert {p.split(":", 1)[1].split(" ")[0] for p in neo4j["ports"]} == {"7687:7687", "7474:7474"}
    assert neo4j["environment"]["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD:?")  # auth from the environment
    health = neo4j["healthcheck"]
    assert health["test"][0] in ("CMD", "CMD-SHELL") and "cypher-shell" in health["test"][1]
    assert {"interval", "timeout", "retries", "start_period"} <= set(health)
    named = {v.split(":", 1)[0] for v in neo4j["volumes"]}
    assert "neo4j-data" in named and named <= set(compose["volumes"])  # named volumes, declared


def test_api_service_waits_for_a_healthy_neo4j(compose: dict[str, Any]) -> None:
    api = compose["services"]["api"]
    assert api["build"] == "." and (ROOT / "Dockerfile").exists()
    assert api["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert api["env_file"] == ".env"
    assert api["environment"]["NEO4J_URI"] == "bolt://neo4j:7687"
    assert api["ports"] == ["127.0.0.1:${API_PORT:-8000}:8000"]
    assert {v.split(":", 1)[0] for v in api["volumes"]} <= set(compose["volumes"])


def test_compose_only_interpolates_real_settings(compose: dict[str, Any]) -> None:
    from core.settings import Settings

    used = _interpolated_vars((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert used, "expected ${...} interpolation"
    assert used <= {name.upper() for name in Settings.model_fields}


def test_dockerfile_installs_every_package_and_serves() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.11-slim$", dockerfile, re.M)
    assert "RUN pip install ." in dockerfile
    assert re.search(r'^CMD \["graphwire", "serve"\]$', dockerfile, re.M)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = {p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}
    copied = set(re.findall(r"^COPY (\w+) \./\1$", dockerfile, re.M))
    assert copied == packages, "Dockerfile COPY lines must match [tool.setuptools.packages.find] include"
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert not packages & set(ignored)
