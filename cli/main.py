"""`graphwire`: a thin command line over the same functions the API and the harness call.

Sub-commands are imported only when they run: `graphwire --help` and `graphwire --version` load typer and this module,
not Neo4j, Chroma, spaCy or langchain.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

import typer
from typer import _click as click  # typer >= 0.29 ships its own click: TyperGroup extends that one's Group
from typer.core import TyperGroup


@dataclass(frozen=True)
class LazyCommand:
    """A sub-command by import path: a `typer.Typer` group or a command function."""

    target: str  # "module:attribute"
    help: str  # the one line `graphwire --help` shows (the command's own help can say more)

    def load(self, name: str) -> click.Command:
        check_settings()
        module, _, attribute = self.target.partition(":")
        obj = getattr(importlib.import_module(module), attribute)
        if isinstance(obj, typer.Typer):
            command: click.Command = typer.main.get_group(obj)  # a group even with one sub-command (`db init`)
        else:
            single = typer.Typer(add_completion=False)
            single.command(name)(obj)
            command = typer.main.get_command(single)
        return _plain_help(command)


def check_settings() -> None:
    """A configuration the Settings validators refuse (LLM_TIMEOUT_S not shorter than REQUEST_TIMEOUT_S, a remote
    NEO4J_URI without a password) is one line per problem and exit code 2, before any command runs."""
    from pydantic import ValidationError

    from graphwire.core.settings import get_settings

    try:
        get_settings()
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]).upper()
            message = str(error["msg"]).removeprefix("Value error, ")
            typer.echo(f"error: configuration: {f'{where}: ' if where else ''}{message}", err=True)
        raise SystemExit(2) from None


def _plain_help(command: click.Command) -> click.Command:
    """Typer's rich help shows a value type even for flags (`--json <bool>`), which reads as if `--json true` were
    wanted; the plain help does not."""
    command.rich_markup_mode = None  # type: ignore[attr-defined]
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)
    return command


COMMANDS: dict[str, LazyCommand] = {
    "demo": LazyCommand("graphwire.cli.demo_cmd:demo", "Start Neo4j, ingest the demo corpus, serve the API, ask."),
    "ingest": LazyCommand("graphwire.cli.ingest_cmd:ingest", "Ingest (or update, or delete) documents."),
    "watch": LazyCommand("graphwire.cli.watch_cmd:watch", "Poll RSS/Atom feeds and ingest new and changed entries."),
    "ask": LazyCommand("graphwire.cli.query_cmd:ask", "Ask a question in one retrieval mode."),
    "serve": LazyCommand("graphwire.cli.serve_cmd:serve", "Run the HTTP API."),
    "mcp": LazyCommand("graphwire.cli.mcp_cmd:mcp_command", "Serve the MCP tools over stdio (for desktop agents)."),
    "eval": LazyCommand("graphwire.cli.eval_cmd:eval_command", "Score every retrieval mode on a question set."),
    "neo4j": LazyCommand("graphwire.cli.neo4j_cmd:app", "Run a local Neo4j 5.26 Community on 127.0.0.1."),
    "edit": LazyCommand("graphwire.cli.edit_cmd:app", "Fix the graph by hand: preview, audit and undo each edit."),
    "export": LazyCommand("graphwire.cli.exchange_cmd:export", "Export the graph as JSON Lines or neo4j-admin CSV."),
    "import": LazyCommand("graphwire.cli.exchange_cmd:import_graph", "Import a JSON Lines graph file, checked first."),
    "auth": LazyCommand("graphwire.cli.auth_cmd:app", "Principals, roles and API keys; `bootstrap` the first admin."),
    "db": LazyCommand("graphwire.cli.db_cmd:app", "Database administration: init, reset, check (--repair)."),
    "workspace": LazyCommand("graphwire.cli.workspace_cmd:app", "Workspaces: list them with their counts, delete one."),
    "embeddings": LazyCommand("graphwire.cli.embeddings_cmd:app", "Offline embedding models."),
    "llm": LazyCommand("graphwire.cli.llm_cmd:app", "The LLM endpoint and the extraction cache."),
}


class LazyGroup(TyperGroup):
    """Lists `COMMANDS` from their one-line help and imports a command's module only to run (or describe) it."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        lazy = COMMANDS.get(cmd_name)
        return lazy.load(cmd_name) if lazy else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, lazy.help) for name, lazy in COMMANDS.items()])


def package_version() -> str:
    try:
        return version("graphwire")
    except PackageNotFoundError:  # a checkout on sys.path that was never installed
        return "unknown"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"graphwire {package_version()}")
        raise typer.Exit()


app = typer.Typer(
    cls=LazyGroup,
    help="graphwire: graph-RAG over a Neo4j knowledge graph.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
    workspace: Annotated[
        str | None,
        typer.Option(
            "--workspace",
            "-w",
            help="The workspace every command reads and writes (default: WORKSPACE, else `default`).",
        ),
    ] = None,
) -> None:
    """graphwire: graph-RAG over a Neo4j knowledge graph, measured against flat retrieval."""
    if workspace is not None:
        _use_workspace(workspace)


def _use_workspace(name: str) -> None:
    """Every command of this process reads the settings of workspace `name` (WORKSPACE, which the settings read)."""
    from graphwire.core import workspaces
    from graphwire.core.settings import get_settings

    try:
        os.environ["WORKSPACE"] = workspaces.checked(name)
    except workspaces.WorkspaceNameError as exc:
        raise typer.BadParameter(str(exc), param_hint="--workspace") from None
    get_settings.cache_clear()


def main(args: list[str] | None = None) -> Any:
    return app(args=args)


if __name__ == "__main__":
    main()
