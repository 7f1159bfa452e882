"""`graphwire mcp`: serve the MCP server over stdio for a desktop agent (app/mcp/stdio.py; docs/mcp.md has the client
configurations). Over HTTP the same server is /mcp of `graphwire serve`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from graphwire.core.logging import configure_logging
from graphwire.core.settings import get_settings


def mcp_command(
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir",
            exists=True,
            file_okay=False,
            help="run in this folder: its .env and the relative store paths (.graphwire/) as if started there "
            "(desktop agents start the command in a folder of their own)",
        ),
    ] = None,
) -> None:
    """Serve the MCP tools and resources on stdin/stdout until the client closes the session; logs go to stderr."""
    if directory is not None:
        os.chdir(directory)
        get_settings.cache_clear()
        from graphwire.cli.main import check_settings

        check_settings()  # the folder's own .env, refused the same way as at start
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_json)  # stderr: stdout carries the protocol
    from graphwire.app.mcp.stdio import serve_stdio

    serve_stdio(settings)
