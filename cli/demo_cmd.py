"""`graphwire demo`: the quick start's main job on a fresh machine, with no configuration.

Starts the local Neo4j when nothing answers at NEO4J_URI, ingests the bundled demo corpus offline (graph and vector
store), serves the HTTP API, asks it the demo questions over HTTP and prints the answers, then keeps serving.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Annotated, Any
from urllib.parse import urlparse

import httpx
import typer
import uvicorn
from rich.console import Console
from rich.table import Table

from graphwire.cli import ingest_cmd
from graphwire.core.logging import configure_logging
from graphwire.core.paths import DEMO_DIR
from graphwire.core.servers.neo4j_server import LocalNeo4j, Neo4jServerError, port_open
from graphwire.core.settings import Settings, get_settings

console = Console()


def demo(
    serve: Annotated[bool, typer.Option(help="keep serving the API after the demo questions")] = True,
    mode: Annotated[str, typer.Option(help="retrieval mode for the demo questions")] = "graph",
    port: Annotated[int | None, typer.Option(help="API port (default API_PORT)")] = None,
) -> None:
    """Start Neo4j if needed, ingest the demo corpus, serve the API and answer the demo questions through it."""
    settings = get_settings()
    configure_logging("WARNING", settings.log_json)
    _ensure_neo4j(settings)
    console.rule("[bold]1. ingest the demo corpus (offline extractor)")
    ingest_cmd.ingest(source=str(DEMO_DIR / "articles.jsonl"), extractor=ingest_cmd.ExtractorChoice.OFFLINE)
    api_port = port or settings.api_port
    server = _start_api(settings.api_host, api_port)
    base = f"http://{settings.api_host}:{api_port}"
    console.rule(f"[bold]2. ask the API at {base}")
    _ask_demo_questions(base, mode, settings)
    if not serve:
        server.should_exit = True
        return
    console.rule("[bold]3. serving")
    console.print(f"web UI: {base}/ui/   API docs: {base}/docs   health: {base}/health")
    console.print(
        f"try: curl -s {base}/v1/query -H 'content-type: application/json' "
        '-d \'{"question": "Who is the chief executive of the company Paradigm Ventures invested in?"}\''
    )
    console.print(f"Neo4j Browser: http://127.0.0.1:{settings.neo4j_http_port}/browser/ (user neo4j, password in "
                  f"{settings.password_file})\nCtrl-C stops the API (`graphwire neo4j stop` stops Neo4j).")  # fmt: skip
    try:
        while not server.should_exit:
            time.sleep(0.5)
    except KeyboardInterrupt:
        server.should_exit = True


def _ensure_neo4j(settings: Settings) -> None:
    target = urlparse(settings.neo4j_uri)
    if port_open(target.hostname or "127.0.0.1", target.port or 7687):
        console.print(f"Neo4j answers at {settings.neo4j_uri}")
        return
    console.rule("[bold]0. start the local Neo4j 5.26 (first run builds it from Maven Central)")
    try:
        status = LocalNeo4j.from_settings(settings).start(timeout_s=settings.neo4j_start_timeout_s)
    except Neo4jServerError as exc:
        console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1) from None
    console.print(f"Neo4j running: {status.bolt}, Browser {status.http}/browser/")


def _start_api(host: str, port: int) -> uvicorn.Server:
    if port_open(host, port):
        console.print(f"[bold red]error:[/] port {port} on {host} is taken; pass --port or set API_PORT")
        raise typer.Exit(1)
    config = uvicorn.Config("graphwire.app.main:create_app", factory=True, host=host, port=port, log_config=None)
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, name="graphwire-api", daemon=True).start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline:
            console.print("[bold red]error:[/] the API did not start within 60 s")
            raise typer.Exit(1)
        time.sleep(0.1)
    return server


def _ask_demo_questions(base: str, mode: str, settings: Settings) -> None:
    questions: list[dict[str, Any]] = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    headers = {"X-API-Key": settings.api_key.get_secret_value()} if settings.api_key else {}
    table = Table(title=f"demo questions (mode={mode}, answered over HTTP)", show_lines=True)
    for column in ("question", "expected", "answer", "cites", "ms"):
        table.add_column(column)
    correct = 0
    with httpx.Client(base_url=base, timeout=60, headers=headers) as client:
        for item in questions:
            response = client.post("/v1/query", json={"question": item["question"], "mode": mode, "top_k": 10})
            if response.status_code != 200:
                table.add_row(item["question"], item["answer"], f"HTTP {response.status_code}", "", "")
                continue
            body = response.json()
            answer = body["answer"]
            hit = item["answer"].lower() in answer.lower()
            correct += hit
            cites = "\n".join(f"{c['publication'] or '?'} {c['published_at'] or ''}" for c in body["citations"][:3])
            total_ms = body.get("timings_ms", {}).get("request", 0.0)
            mark = "[green]" if hit else "[red]"
            table.add_row(item["question"], item["answer"], f"{mark}{answer}[/]", cites, f"{total_ms:.0f}")
    console.print(table)
    console.print(f"{correct} of {len(questions)} answers contain the expected answer")
