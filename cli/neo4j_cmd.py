"""`graphwire neo4j build|start|stop|status`: the local Neo4j 5.26 assembled from Maven Central (no Docker needed)."""

from __future__ import annotations

import time
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from graphwire.core.servers.neo4j_server import LocalNeo4j, Neo4jServerError, ServerStatus
from graphwire.core.settings import get_settings

app = typer.Typer(help="Run a local Neo4j 5.26 Community (Bolt + Neo4j Browser) on 127.0.0.1.", no_args_is_help=True)
console = Console()
err_console = Console(stderr=True)

EXIT_NOT_RUNNING = 3  # LSB convention for "program is not running"


def _server() -> LocalNeo4j:
    try:
        return LocalNeo4j.from_settings(get_settings())
    except Neo4jServerError as exc:
        _fail(exc)


def _fail(exc: Exception) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {exc}")
    raise typer.Exit(1) from None


def _status_table(server: LocalNeo4j, status: ServerStatus) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    state = "[green]running[/]" if status.running else "[yellow]starting[/]" if status.pid else "[red]stopped[/]"
    rows = [
        ("state", state),
        ("pid", str(status.pid or "-")),
        ("bolt", status.bolt),
        ("http", status.http or "off"),
        ("browser", f"{server.browser_url}  (user neo4j, password in {server.password_file})" if status.http else "-"),
        ("rss", f"{status.rss_mb:.0f} MB" if status.rss_mb else "-"),
        ("home", str(server.home)),
        ("log", str(server.log_file)),
    ]
    for key, value in rows:
        table.add_row(key, value)
    return table


@app.command()
def build() -> None:
    """Build the launcher and fetch Neo4j's jars from Maven Central (once; later calls reuse the build)."""
    server = LocalNeo4j(get_settings().neo4j_home)  # building needs no local NEO4J_URI
    started = time.perf_counter()
    try:
        built = server.build()
    except Neo4jServerError as exc:
        _fail(exc)
    if built:
        console.print(f"built the Neo4j launcher in {time.perf_counter() - started:.0f} s")
    else:
        console.print("the Neo4j launcher is already built")


@app.command()
def start(
    timeout: Annotated[
        float | None, typer.Option(help="seconds to wait for Bolt (default NEO4J_START_TIMEOUT_S)")
    ] = None,
) -> None:
    """Start Neo4j in the background and wait until Bolt answers; does nothing when it already runs."""
    settings = get_settings()
    server = _server()
    if server.status().pid is not None:
        console.print("Neo4j is already running")
        console.print(_status_table(server, server.status()))
        return
    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
    started = time.perf_counter()
    try:
        with console.status("building (first run only) and starting Neo4j..."):
            status = server.start(timeout_s=timeout or settings.neo4j_start_timeout_s, password=password)
    except Neo4jServerError as exc:
        _fail(exc)
    console.print(f"Neo4j started in {time.perf_counter() - started:.1f} s")
    console.print(_status_table(server, status))


@app.command()
def stop() -> None:
    """Stop the local Neo4j (clean shutdown); does nothing when it is not running."""
    server = _server()
    if server.stop():
        console.print("Neo4j stopped")
    else:
        console.print("Neo4j is not running")


@app.command()
def status() -> None:
    """Show pid, Bolt and Browser URLs and memory; exit code 3 when Neo4j is not running."""
    server = _server()
    current = server.status()
    console.print(_status_table(server, current))
    if not current.running:
        raise typer.Exit(EXIT_NOT_RUNNING)
