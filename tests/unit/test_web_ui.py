"""What the API serves to browsers, without a Neo4j: /ui, /docs and /redoc load only files the package ships, the
vendored libraries match their manifest and carry their licenses, and the UI learns whether to ask for an API key."""

import re
import sys
import tomllib
from collections.abc import Iterator
from fnmatch import fnmatch
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from graphwire.app.main import create_app
from graphwire.app.web import UI_DIR
from graphwire.core.servers.neo4j_server import free_port
from graphwire.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import vendor_ui  # noqa: E402

API_KEY = "ui-test-key-0123456789"


class _Assets(HTMLParser):
    """The URLs a page loads: script src, link href (stylesheets, icons)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script" and values.get("src"):
            self.urls.append(values["src"] or "")
        if tag == "link" and values.get("href"):
            self.urls.append(values["href"] or "")


def _assets(html: str) -> list[str]:
    parser = _Assets()
    parser.feed(html)
    return parser.urls


def _settings(tmp_path: Path, **values: Any) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        neo4j_uri=f"bolt://127.0.0.1:{free_port()}",  # nothing listens: these pages need no Neo4j
        neo4j_password=SecretStr("not-used-here"),
        neo4j_home=tmp_path / "neo4j",
        chroma_path=tmp_path / "chroma",
        **values,
    )


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(tmp_path_factory.mktemp("web")))) as test_client:
        yield test_client


def test_vendored_libraries_match_their_manifest_and_carry_licenses() -> None:
    assert vendor_ui.problems() == []
    manifest = vendor_ui.load_manifest()
    assert {p["package"] for p in manifest["packages"]} == {"cytoscape", "swagger-ui-dist", "redoc"}
    for package in manifest["packages"]:
        assert re.fullmatch(r"\d+\.\d+\.\d+", package["version"]) and package["integrity"].startswith("sha512-")
        assert "LICENSE" in {f["to"] for f in package["files"]}, package["package"]


def test_vendored_bundles_load_nothing_from_a_cdn() -> None:
    bundles = sorted(vendor_ui.VENDOR.glob("*/*.js"))
    assert len(bundles) == 3
    assert [b.name for b in bundles if "https://cdn." in b.read_text(encoding="utf-8")] == []


def test_a_changed_vendored_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "vendor"
    copy.mkdir()
    (copy / "vendor.json").write_text(vendor_ui.MANIFEST.read_text(encoding="utf-8"), encoding="utf-8")
    for package in vendor_ui.load_manifest()["packages"]:
        (copy / package["package"]).mkdir()
        for file in package["files"]:
            (copy / package["package"] / file["to"]).write_bytes(
                (vendor_ui.VENDOR / package["package"] / file["to"]).read_bytes()
            )
    (copy / "cytoscape" / "cytoscape.min.js").write_text("tampered", encoding="utf-8")
    (copy / "redoc" / "LICENSE").unlink()
    monkeypatch.setattr(vendor_ui, "VENDOR", copy)
    monkeypatch.setattr(vendor_ui, "MANIFEST", copy / "vendor.json")
    found = vendor_ui.problems()
    assert len(found) == 2
    assert any("cytoscape.min.js differs" in line for line in found) and any(
        "LICENSE is missing" in line for line in found
    )


def test_the_wheel_ships_every_ui_file() -> None:
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    patterns = globs["graphwire.app"]
    files = [p.relative_to(UI_DIR.parent).as_posix() for p in UI_DIR.rglob("*") if p.is_file()]
    assert files and [f for f in files if not any(fnmatch(f, pattern) for pattern in patterns)] == []


def test_ui_page_loads_only_files_the_server_has(client: TestClient) -> None:
    redirect = client.get("/ui", follow_redirects=False)
    assert redirect.status_code == 307 and redirect.headers["location"] == "/ui/"
    page = client.get("/ui/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    urls = _assets(page.text)
    assert "vendor/cytoscape/cytoscape.min.js" in urls and "js/main.js" in urls
    for url in urls:
        assert not re.match(r"^(https?:)?//", url), f"{url} is not served locally"
        assert client.get(f"/ui/{url}").status_code == 200, url


def test_ui_modules_import_only_modules_that_exist() -> None:
    scripts = sorted((UI_DIR / "js").glob("*.js"))
    assert scripts
    for script in scripts:
        for target in re.findall(r'from "(\./[^"]+)"', script.read_text(encoding="utf-8")):
            assert (script.parent / target).is_file(), f"{script.name} imports missing {target}"


@pytest.mark.parametrize(
    ("path", "needed"),
    [
        ("/docs", ["/ui/vendor/swagger-ui-dist/swagger-ui-bundle.js", "/ui/vendor/swagger-ui-dist/swagger-ui.css"]),
        ("/redoc", ["/ui/vendor/redoc/redoc.standalone.js"]),
    ],
)
def test_api_docs_use_the_vendored_assets(client: TestClient, path: str, needed: list[str]) -> None:
    page = client.get(path)
    assert page.status_code == 200
    urls = _assets(page.text)
    assert set(needed) <= set(urls)
    assert [u for u in urls if re.match(r"^(https?:)?//", u)] == []  # no CDN, no web fonts
    for url in urls:
        asset = client.get(url)
        assert asset.status_code == 200 and len(asset.content) > 0, url
    assert "/openapi.json" in page.text
    if path == "/docs":
        assert '"validatorUrl": null' in page.text  # no badge image from validator.swagger.io


def test_browser_pages_stay_out_of_the_openapi_schema(client: TestClient) -> None:
    paths = set(client.get("/openapi.json").json()["paths"])
    assert "/v1/query" in paths and not {p for p in paths if p.startswith(("/ui", "/docs", "/redoc"))}


def test_ui_config_says_whether_the_api_wants_a_key_and_which_workspace_it_serves(
    client: TestClient, tmp_path: Path
) -> None:
    assert client.get("/ui/config.json").json() == {"api_key_required": False, "workspace": "default"}
    settings = _settings(tmp_path, api_key=API_KEY).for_workspace("team-b")
    with TestClient(create_app(settings)) as guarded:
        assert guarded.get("/ui/config.json").json() == {"api_key_required": True, "workspace": "team-b"}
        assert guarded.get("/ui/").status_code == 200  # the page itself is public; its /v1 calls send the key
        assert guarded.get("/v1/modes").status_code == 401
        assert guarded.get("/v1/modes", headers={"X-API-Key": API_KEY}).status_code == 200


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize(
    ("text", "background"),
    [("fg", "bg"), ("fg", "panel"), ("muted", "bg"), ("muted", "panel"), ("accent", "bg"), ("accent", "panel"),
     ("accent-fg", "accent"), ("error", "bg"), ("error", "panel"), ("#ffffff", "key"), ("#ffffff", "bridge")],
)  # fmt: skip
def test_ui_text_colours_are_readable(text: str, background: str) -> None:
    """WCAG AA: at least 4.5:1 between each text colour of ui.css and the backgrounds it is drawn on."""
    css = (UI_DIR / "ui.css").read_text(encoding="utf-8")
    colours = dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-fA-F]{6});", css))

    def colour(name: str) -> str:
        return name if name.startswith("#") else colours[name]

    assert _contrast(colour(text), colour(background)) >= 4.5
