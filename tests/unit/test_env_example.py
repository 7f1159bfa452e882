"""`.env.example` and the README configuration table are generated from core/settings.py; they must not drift."""

import sys
from pathlib import Path

import pytest

from graphwire.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import gen_env_example as gen  # noqa: E402

FIX = "run `.venv/bin/python tools/gen_env_example.py` (or `make env-example`) and commit the result"


@pytest.fixture(scope="module")
def docs() -> list[gen.SettingDoc]:
    return gen.collect()


def test_env_example_is_up_to_date(docs: list[gen.SettingDoc]) -> None:
    assert (ROOT / ".env.example").read_text(encoding="utf-8") == gen.render_env_example(docs), FIX


def test_readme_configuration_table_is_up_to_date(docs: list[gen.SettingDoc]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert gen.readme_with_table(readme, gen.render_table(docs)) == readme, FIX


def test_every_setting_is_documented(docs: list[gen.SettingDoc]) -> None:
    assert [d.name for d in docs] == list(Settings.model_fields), "every Settings field must be found in the source"
    undocumented = [d.env for d in docs if not d.comment]
    assert not undocumented, f"add a one-line comment to these fields in core/settings.py: {undocumented}"


def test_env_example_values_load_back_as_the_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    loaded = Settings(_env_file=ROOT / ".env.example")  # type: ignore[call-arg]
    assert loaded.model_dump() == Settings(_env_file=None).model_dump()  # type: ignore[call-arg]


def test_comments_sections_and_defaults_are_read_from_the_source() -> None:
    source = """
class Settings(BaseSettings):
    model_config = SettingsConfigDict()

    # Neo4j
    neo4j_uri: str = "x"  # trailing comment
    # comment above
    # on two lines
    neo4j_user: str = "neo4j"

    # Logging: how much
    log_level: str = "INFO"
"""
    docs = {d.name: d for d in gen.collect(source)}
    assert docs["neo4j_uri"].section == "Neo4j" and docs["neo4j_uri"].comment == "trailing comment"
    assert docs["neo4j_user"].comment == "comment above on two lines"
    assert docs["log_level"].section == "Logging: how much" and docs["log_level"].comment == ""
    assert gen.short_title("Logging: how much") == "Logging"
    assert docs["log_level"].default == "INFO"  # defaults come from the real Settings class
