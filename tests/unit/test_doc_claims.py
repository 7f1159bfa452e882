"""The docs cannot drift from the code: every setting they name exists, every default they state is the code's, every
repository path and link they give exists (README.md, docs/*.md, bench/eval/README.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from graphwire.core.settings import Settings
from graphwire.retrieval.flat.plus import FlatPlusConfig
from graphwire.retrieval.hybrid import HybridConfig
from graphwire.retrieval.joint import JointConfig

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "eval" / "README.md"]
TOP_LEVEL = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")}
# Upper-case names the docs use that are neither settings nor schema types: other programs' variables and file names
OTHER_NAMES = {
    "CHROMIUM_PATH": "the browser tests' chromium binary",
    "OLLAMA_CONTEXT_LENGTH": "Ollama's own setting",
    "Q4_K_M": "a GGUF quantisation",
    "PROMETHEUS_MULTIPROC_DIR": "prometheus-client's multiprocess folder",
    "OTEL_SERVICE_NAME": "an OpenTelemetry SDK variable",
    "OTEL_RESOURCE_ATTRIBUTES": "an OpenTelemetry SDK variable",
    "OTEL_TRACES_SAMPLER": "an OpenTelemetry SDK variable",
    "OTEL_TRACES_SAMPLER_ARG": "an OpenTelemetry SDK variable",
    "OTEL_EXPORTER_OTLP_HEADERS": "an OpenTelemetry SDK variable",
    "OTEL_BSP_SCHEDULE_DELAY": "an OpenTelemetry SDK variable",
    "START_ID": "a neo4j-admin import CSV header field",
    "END_ID": "a neo4j-admin import CSV header field",
}
UPPER_NAME = re.compile(r"(?<![A-Za-z0-9_./-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![A-Za-z0-9_])")
STATED_DEFAULT = re.compile(r"`?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`?,? \(default `?([^`),;]+)`?\)")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CONFIG_FIELD = re.compile(r"\b([A-Z][A-Za-z]*Config)\.([a-z_]+)")
# the retrieval configurations whose fields the docs may name (`FlatPlusConfig.order_depth`)
CONFIGS = {config.__name__: config for config in (FlatPlusConfig, HybridConfig, JointConfig)}
CODE_PATH = re.compile(r"`([a-z][A-Za-z0-9_.\-]*/[A-Za-z0-9_./\-]*)`")


def _schema_types() -> set[str]:
    """Relationship types of the schemas, the structural ones the Cypher files write, and the scripts' variables."""
    names: set[str] = set()
    for path in [*ROOT.glob("schema/*.yaml"), *ROOT.glob("tests/data/**/schema*.yaml")]:
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", text))
        yaml.safe_load(text)  # a schema file the docs rely on must at least parse
    for path in ROOT.glob("cypher/**/*.cypher"):
        names |= set(re.findall(r"\[(?:\w+)?:([A-Z][A-Z0-9_]+)", path.read_text(encoding="utf-8")))
    for path in [*ROOT.glob("bench/*.sh"), *ROOT.glob("tools/*.sh"), ROOT / ".ci" / "run"]:
        names |= set(re.findall(r"\$\{?([A-Z][A-Z0-9_]+)", path.read_text(encoding="utf-8")))
    return names


def _settings() -> dict[str, object]:
    return {name.upper(): field.default for name, field in Settings.model_fields.items()}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_upper_case_name_is_a_setting_a_schema_type_or_a_known_outside_name(doc: Path) -> None:
    known = set(_settings()) | _schema_types() | set(OTHER_NAMES)
    unknown = sorted(set(UPPER_NAME.findall(doc.read_text(encoding="utf-8"))) - known)
    assert not unknown, f"{doc.name} names settings the code does not have: {unknown}"


def _same(stated: str, default: object) -> bool:
    stated = stated.strip()
    if isinstance(default, bool):
        return stated.lower() == str(default).lower()
    if isinstance(default, int | float):
        number = re.match(r"-?[\d.,_]+", stated)
        return number is not None and float(number.group().replace(",", "").replace("_", "")) == float(default)
    return stated == str(getattr(default, "value", default))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_default_the_docs_state_is_the_codes(doc: Path) -> None:
    settings = _settings()
    wrong = [
        f"{name}: docs say {stated!r}, code has {settings[name]!r}"
        for name, stated in STATED_DEFAULT.findall(doc.read_text(encoding="utf-8"))
        if name in settings and not _same(stated, settings[name])
    ]
    assert not wrong, f"{doc.name}: {wrong}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_configuration_field_the_docs_name_exists(doc: Path) -> None:
    named = CONFIG_FIELD.findall(doc.read_text(encoding="utf-8"))
    wrong = [f"{cls}.{field}" for cls, field in named if field not in getattr(CONFIGS.get(cls), "model_fields", {})]
    assert not wrong, f"{doc.name} names configuration fields the code does not have: {wrong}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_repository_path_and_link_exists(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    missing = [p for p in LINK.findall(text) if not p.startswith(("http", "mailto")) and not (doc.parent / p).exists()]
    for path in CODE_PATH.findall(text):
        if path.split("/", 1)[0] not in TOP_LEVEL:
            continue  # a runtime path (.graphwire/...), a MIME type or a folder inside a run
        candidates = [ROOT / path, ROOT / "cypher" / path, ROOT / "cypher" / f"{path}.cypher"]  # statement names
        if not any(c.exists() for c in candidates):
            missing.append(path)
    assert not missing, f"{doc.name} names paths that do not exist: {missing}"


def test_the_checks_fail_on_a_wrong_claim(tmp_path: Path) -> None:
    """The rules above catch a wrong default, an unknown setting and a missing path."""
    settings = _settings()
    assert not _same("30 s", 180.0) and _same("180 s", 180.0) and _same("1,000", 1000)
    assert _same("fused", settings["GRAPH_FILL_MODE"]) and not _same("joint", settings["GRAPH_FILL_MODE"])
    assert "NOT_A_SETTING_X" not in set(settings) | _schema_types() | set(OTHER_NAMES)
    assert STATED_DEFAULT.findall("`REQUEST_TIMEOUT_S` (default 30 s)") == [("REQUEST_TIMEOUT_S", "30 s")]
    assert CODE_PATH.findall("see `retrieval/nowhere.py`") == ["retrieval/nowhere.py"]
    assert not (ROOT / "retrieval/nowhere.py").exists()
    assert CONFIG_FIELD.findall("`FlatPlusConfig.order_deepness`") == [("FlatPlusConfig", "order_deepness")]
    assert "order_deepness" not in FlatPlusConfig.model_fields and "order_depth" in FlatPlusConfig.model_fields


MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|root|home)/[\w.-]+|/tmp/gw[\w.-]*|/tmp/s\d+/")


def test_committed_reports_name_no_path_of_the_machine_they_ran_on() -> None:
    """Reports, bench results and docs give paths relative to the repository (or ../shared/), never the folders of the
    machine that produced them."""
    texts = [*DOCS, *ROOT.glob("bench/**/*.md"), *ROOT.glob("bench/**/*.json"), *ROOT.glob("docs/**/*.md")]
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in sorted(set(texts))
        for match in MACHINE_PATH.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not found, found
