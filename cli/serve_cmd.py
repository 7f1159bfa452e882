"""`graphwire serve`: run the HTTP API with uvicorn."""

from __future__ import annotations

import ipaddress
import logging
from pathlib import Path
from typing import Annotated

import typer
import uvicorn

from graphwire.core.logging import configure_logging
from graphwire.core.metrics import multiprocess_dir
from graphwire.core.settings import get_settings


def serve(
    host: Annotated[str | None, typer.Option(help="bind address (default API_HOST)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default API_PORT)")] = None,
    reload: Annotated[bool, typer.Option(help="restart on code changes (development)")] = False,
    workers: Annotated[int, typer.Option(help="worker processes")] = 1,
) -> None:
    """Serve the API (web UI at /ui, OpenAPI docs at /docs); starts even when Neo4j is down, /health says so."""
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_json)
    bind = host or settings.api_host
    if open_to_others(bind, settings.api_key is not None):
        logging.getLogger("graphwire.serve").warning(
            "serving on %s without API_KEY: anyone who reaches this port may read, add and delete every document; "
            "set API_KEY or bind to 127.0.0.1",
            bind,
        )
    fresh_multiprocess_dir()
    uvicorn.run(
        "graphwire.app.main:create_app",
        factory=True,
        host=bind,
        port=port or settings.api_port,
        reload=reload,
        workers=workers,
        log_config=None,  # graphwire's own logging (core/logging.py) handles uvicorn's loggers too
        proxy_headers=True,
    )


def fresh_multiprocess_dir() -> Path | None:
    """With PROMETHEUS_MULTIPROC_DIR set, create it and remove the metric files a previous run left there (the
    workers' counters would otherwise carry on from them: docs/operations.md)."""
    folder = multiprocess_dir()
    if folder is None:
        return None
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):
        stale.unlink()
    return path


def open_to_others(host: str, has_key: bool) -> bool:
    """Bound beyond loopback with no API key: every route, deletes included, is open to whoever reaches the port."""
    if has_key or host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True  # a host name that may resolve anywhere
