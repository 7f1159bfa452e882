"""The container files, checked for what would break the image or the stack: `docker compose config` and
`docker build` need a Docker engine, which CI lacks, so docker-compose.yml is parsed as YAML and the Dockerfile as a
list of instructions, and both are compared with the code they start (console scripts, CLI commands, settings, routes).
"""

import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from graphwire.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_VARS = {name.upper() for name in Settings.model_fields}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, comments dropped and `\\` continuations joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or (line.startswith("#") and not pending):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, args = (pending + line).partition(" ")
        instructions.append((keyword.upper(), args.strip()))
        pending = ""
    return instructions


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _args(dockerfile: list[tuple[str, str]], keyword: str) -> list[str]:
    return [args for key, args in dockerfile if key == keyword]


def _env(dockerfile: list[tuple[str, str]]) -> dict[str, str]:
    """ENV KEY=VALUE pairs, later ones winning as they do in the image."""
    env: dict[str, str] = {}
    for args in _args(dockerfile, "ENV"):
        env |= dict(pair.split("=", 1) for pair in shlex.split(args))
    return env


def _container_port(mapping: str) -> int:
    return int(mapping.rsplit(":", 1)[1])


# docker-compose.yml


def test_the_stack_is_neo4j_and_the_api(compose: dict[str, Any]) -> None:
    default = {name for name, service in compose["services"].items() if not service.get("profiles")}
    assert default == {"neo4j", "api"}
    assert compose["services"]["neo4j"]["image"] == "neo4j:5.26-community"  # the version the tests run against
    assert compose["services"]["api"]["build"] == "."


def test_neo4j_serves_bolt_and_http_on_loopback_with_auth_from_the_environment(compose: dict[str, Any]) -> None:
    neo4j = compose["services"]["neo4j"]
    assert sorted(neo4j["ports"]) == ["127.0.0.1:7474:7474", "127.0.0.1:7687:7687"]
    assert re.fullmatch(r"neo4j/\$\{NEO4J_PASSWORD:\?.+\}", neo4j["environment"]["NEO4J_AUTH"])  # fails when unset
    named = {v.split(":", 1)[0] for v in neo4j["volumes"]}
    assert "neo4j-data" in named and named <= set(compose["volumes"])  # data survives `down`, volumes declared


def test_neo4j_healthcheck_logs_in_over_bolt(compose: dict[str, Any]) -> None:
    health = compose["services"]["neo4j"]["healthcheck"]
    kind, command = health["test"]
    assert kind == "CMD-SHELL"  # a shell, for the $${NEO4J_AUTH#neo4j/} expansion
    words = shlex.split(command)
    assert words[0] == "cypher-shell" and words[words.index("-u") + 1] == "neo4j"
    # the password comes from the container's NEO4J_AUTH ($$ escapes compose interpolation), not a literal
    assert words[words.index("-p") + 1] == "$${NEO4J_AUTH#neo4j/}"
    assert {"interval", "timeout", "retries", "start_period"} <= set(health)
    assert int(health["retries"]) >= 3


def test_api_waits_for_a_healthy_neo4j_and_reaches_it_by_service_name(compose: dict[str, Any]) -> None:
    api, neo4j = compose["services"]["api"], compose["services"]["neo4j"]
    assert api["depends_on"] == {"neo4j": {"condition": "service_healthy"}}
    assert "healthcheck" in neo4j  # service_healthy without a healthcheck would never start the API
    uri = api["environment"]["NEO4J_URI"]
    host, port = re.fullmatch(r"bolt://([\w-]+):(\d+)", uri).groups()  # type: ignore[union-attr]
    assert host == "neo4j" and int(port) in {_container_port(p) for p in neo4j["ports"]}
    assert api["environment"]["NEO4J_PASSWORD"].startswith("${NEO4J_PASSWORD:?")  # the same secret as NEO4J_AUTH


def test_api_environment_is_graphwire_settings_and_the_port_matches(compose: dict[str, Any]) -> None:
    api = compose["services"]["api"]
    assert set(api["environment"]) <= SETTINGS_VARS  # a misspelt name would be silently ignored
    assert api["environment"]["API_HOST"] == "0.0.0.0"  # loopback inside a container is unreachable
    [mapping] = api["ports"]
    assert mapping.startswith("127.0.0.1:")
    assert _container_port(mapping) == int(api["environment"]["API_PORT"])
    assert api["env_file"] == ".env"
    named = {v.split(":", 1)[0] for v in api["volumes"] if not v.startswith("./")}  # ./documents is a bind mount
    assert named and named <= set(compose["volumes"])


def test_compose_only_interpolates_real_settings() -> None:
    used = set(re.findall(r"(?<!\$)\$\{([A-Z_][A-Z0-9_]*)", (ROOT / "docker-compose.yml").read_text(encoding="utf-8")))
    assert used, "expected ${...} interpolation"
    assert used <= SETTINGS_VARS


# Dockerfile


def test_dockerfile_base_is_a_supported_python(dockerfile: list[tuple[str, str]], pyproject: dict[str, Any]) -> None:
    [base] = _args(dockerfile, "FROM")
    version = re.fullmatch(r"python:(\d+)\.(\d+)-slim", base)
    assert version, base
    minimum = re.fullmatch(r">=(\d+)\.(\d+)", pyproject["project"]["requires-python"])
    assert minimum and tuple(map(int, version.groups())) >= tuple(map(int, minimum.groups()))


def test_dockerfile_copies_every_package_before_installing(
    dockerfile: list[tuple[str, str]], pyproject: dict[str, Any]
) -> None:
    packages = {p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}
    # graphwire/ links to the repository's top-level folders: the image needs the links and what they point at.
    packages |= {link.readlink().name for link in (ROOT / "graphwire").iterdir() if link.is_symlink()}
    sources: list[str] = []
    install_at = None
    for index, (key, args) in enumerate(dockerfile):
        if key == "COPY":
            sources += args.split()[:-1]
        if key == "RUN" and re.search(r"\bpip install (--constraint \S+ )?\.(\s|$)", args):
            install_at = index
            break
    assert install_at is not None, "no `pip install .`"
    assert packages <= set(sources), "a package is installed without its source: COPY it before `pip install .`"
    assert {"pyproject.toml", pyproject["project"]["readme"]} <= set(sources)  # the build needs both
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: no such path"
    ignored = set((ROOT / ".dockerignore").read_text(encoding="utf-8").split())
    assert not set(sources) & ignored, "a copied path is excluded from the build context"


def test_dockerfile_command_is_the_console_script_serving_the_api(
    dockerfile: list[tuple[str, str]], pyproject: dict[str, Any]
) -> None:
    [cmd] = _args(dockerfile, "CMD")
    program, *arguments = json.loads(cmd)  # exec form: signals reach the server, no shell in between
    assert not _args(dockerfile, "ENTRYPOINT")
    assert program in pyproject["project"]["scripts"]
    module, _, function = pyproject["project"]["scripts"][program].partition(":")
    assert module == "graphwire.cli.main" and function == "main"
    from typer.main import get_command

    from graphwire.cli.main import app

    command = get_command(app)
    assert arguments[0] in command.list_commands(None)  # type: ignore[arg-type]
    assert arguments == ["serve"]


def test_dockerfile_serves_on_the_exposed_port_and_checks_health(dockerfile: list[tuple[str, str]]) -> None:
    env = _env(dockerfile)
    graphwire_env = {name for name in env if not name.startswith(("PYTHON", "PIP_"))}
    assert graphwire_env <= SETTINGS_VARS  # a misspelt name would be silently ignored
    assert env["API_HOST"] == "0.0.0.0"
    assert _args(dockerfile, "EXPOSE") == [env["API_PORT"]]
    [health] = _args(dockerfile, "HEALTHCHECK")
    url = re.search(r"http://127\.0\.0\.1:(\d+)(/\S*?)['\"]", health)
    assert url and url.group(1) == env["API_PORT"]
    from graphwire.app.main import create_app

    paths = create_app(Settings(_env_file=None)).openapi()["paths"]  # type: ignore[call-arg]
    assert "get" in paths[url.group(2)]  # the probe's route exists (urlopen sends GET)


def test_dockerfile_runs_as_a_user_with_writable_state(dockerfile: list[tuple[str, str]]) -> None:
    users = _args(dockerfile, "USER")
    assert users and users[-1] not in {"root", "0"}
    env = _env(dockerfile)
    workdir = _args(dockerfile, "WORKDIR")[-1]
    for name in ("CHROMA_PATH", "EXTRACTION_CACHE_PATH", "NEO4J_HOME"):
        assert env[name].startswith(workdir + "/"), name  # under the volume the user owns
    assert any(f"chown {users[-1]} {workdir}" in args for args in _args(dockerfile, "RUN"))


def test_the_image_carries_the_demo_corpus_and_installs_pinned_versions(dockerfile: list[tuple[str, str]]) -> None:
    copied = {args.split()[0]: args.split()[-1] for key, args in dockerfile if key == "COPY" and len(args.split()) == 2}
    assert copied.get("data") == "./data" and (ROOT / "data" / "demo" / "articles.jsonl").is_file()
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert not {"data", "data/demo", "data/*"} & set(ignored)
    workdir = _args(dockerfile, "WORKDIR")[0]
    assert workdir == "/srv/graphwire"  # the README and docker-compose.yml name /srv/graphwire/data/demo/articles.jsonl
    install = next(args for key, args in dockerfile if key == "RUN" and "pip install" in args)
    assert "--constraint constraints.txt" in install
    pins = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    assert re.search(r"^fastapi==\S+$", pins, re.M) and re.search(r"^neo4j==\S+$", pins, re.M)


def test_compose_mounts_a_documents_folder_for_ingest(compose: dict[str, Any]) -> None:
    volumes = compose["services"]["api"]["volumes"]
    assert "./documents:/documents:ro" in volumes
    assert "/srv/graphwire/data/demo/articles.jsonl" in (ROOT / "docker-compose.yml").read_text(encoding="utf-8")


def test_the_observability_profile_adds_prometheus_grafana_and_jaeger(compose: dict[str, Any]) -> None:
    profiled = {name for name, service in compose["services"].items() if service.get("profiles")}
    assert profiled == {"prometheus", "grafana", "jaeger"}
    assert all(compose["services"][name]["profiles"] == ["observability"] for name in profiled)
    for name in profiled:
        for volume in compose["services"][name].get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("./"):
                assert (ROOT / source).is_file(), volume  # every file a service mounts is committed
            else:
                assert source in compose["volumes"], volume


def test_prometheus_scrapes_the_api_metrics_port(compose: dict[str, Any]) -> None:
    config = yaml.safe_load((ROOT / "docs" / "observability" / "prometheus.yml").read_text(encoding="utf-8"))
    [job] = config["scrape_configs"]
    [target] = job["static_configs"][0]["targets"]
    host, port = target.split(":")
    api = compose["services"]["api"]["environment"]
    assert host == "api" and port == api["METRICS_PORT"] and api["METRICS_HOST"] == "0.0.0.0"
    rules = yaml.safe_load((ROOT / "docs" / "observability" / "alerts.yml").read_text(encoding="utf-8"))
    assert _metric_names(*(r["expr"] for g in rules["groups"] for r in g["rules"])) <= _exported()


def test_grafana_is_provisioned_with_the_dashboard_of_exported_metrics(compose: dict[str, Any]) -> None:
    grafana = compose["services"]["grafana"]
    mounts = dict(v.split(":")[:2] for v in grafana["volumes"] if v.startswith("./"))
    provider = yaml.safe_load((ROOT / "docs/observability/grafana/dashboards.yml").read_text(encoding="utf-8"))
    dashboard_dir = provider["providers"][0]["options"]["path"]
    assert any(target.startswith(dashboard_dir + "/") and source.endswith(".json") for source, target in mounts.items())
    sources = yaml.safe_load((ROOT / "docs/observability/grafana/datasources.yml").read_text(encoding="utf-8"))
    uids = {d["uid"] for d in sources["datasources"]}
    dashboard = json.loads((ROOT / "docs/observability/grafana/graphwire.json").read_text(encoding="utf-8"))
    assert dashboard["panels"] and {p["datasource"]["uid"] for p in dashboard["panels"]} <= uids
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = _metric_names(*exprs)
    assert used <= _exported(), used - _exported()
    from graphwire.core.metrics import catalogue

    assert {m.name for m in catalogue()} <= {_family(n) for n in used}  # a panel shows every metric


def _metric_names(*exprs: str) -> set[str]:
    return {n for e in exprs for n in re.findall(r"\b((?:graphwire|process)_[a-z0-9_]+)\b", e)}


def _family(name: str) -> str:
    return re.sub(r"_(bucket|count|sum)$", "", name)


def _exported() -> set[str]:
    """Every series name graphwire's metrics expose, histograms' _bucket/_count/_sum included, and the process ones."""
    from graphwire.core.metrics import catalogue

    names = {"process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds"}
    for m in catalogue():
        names |= {m.name} | ({f"{m.name}_{s}" for s in ("bucket", "count", "sum")} if m.kind == "histogram" else set())
    return names
