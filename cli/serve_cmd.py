"""`graphwire serve`: run the HTTP API with uvicorn."""

from __future__ import annotations

from typing import Annotated

import typer
import uvicorn

from graphwire.core.logging import configure_logging
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
    uvicorn.run(
        "graphwire.app.main:create_app",
        factory=True,
        host=host or settings.api_host,
        port=port or settings.api_port,
        reload=reload,
        workers=workers,
        log_config=None,  # graphwire's own logging (core/logging.py) handles uvicorn's loggers too
        proxy_headers=True,
    )
