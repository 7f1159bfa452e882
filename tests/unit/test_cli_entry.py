"""The `graphwire` entry point: lazy sub-commands, --version, plain flags in the help."""

import subprocess
import sys

from typer.testing import CliRunner

from graphwire.cli.main import COMMANDS, app, package_version

HEAVY = ("neo4j", "chromadb", "spacy", "langchain_core", "openai", "onnxruntime", "matplotlib", "uvicorn")


def _run(*code: str) -> str:
    result = subprocess.run([sys.executable, "-c", "\n".join(code)], capture_output=True, text=True, check=True)
    return result.stdout


def test_help_lists_every_command_without_importing_the_heavy_libraries() -> None:
    out = _run(
        "import sys",
        "from graphwire.cli.main import main",
        "try:",
        "    main(['--help'])",
        "except SystemExit:",
        "    pass",
        f"print('LOADED', [m for m in {HEAVY!r} if m in sys.modules])",
    )
    assert "LOADED []" in out
    for name in COMMANDS:
        assert f"  {name} " in out


def test_every_lazy_command_loads_and_has_help() -> None:
    runner = CliRunner()
    for name in COMMANDS:
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "Usage:" in result.output


def test_version_prints_the_installed_distribution_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"graphwire {package_version()}"
    assert package_version() != "unknown"


def test_flags_show_no_value_placeholder() -> None:
    """`--json <bool>` in the help made users type `--json true`, which is an error."""
    result = CliRunner().invoke(app, ["ask", "--help"])
    assert "--json" in result.output
    assert "<bool>" not in result.output


def test_serve_warns_only_when_bound_beyond_loopback_without_a_key() -> None:
    from graphwire.cli.serve_cmd import open_to_others

    assert open_to_others("0.0.0.0", has_key=False) and open_to_others("192.0.2.7", has_key=False)
    assert open_to_others("api.example.org", has_key=False)
    assert not open_to_others("127.0.0.1", has_key=False) and not open_to_others("::1", has_key=False)
    assert not open_to_others("localhost", has_key=False) and not open_to_others("0.0.0.0", has_key=True)
