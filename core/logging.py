"""Structured logging: one setup call, a request id carried in a context variable, JSON lines when LOG_JSON=true."""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from graphwire.core.tracing import current_ids

request_id_var: ContextVar[str | None] = ContextVar("graphwire_request_id", default=None)

# Attributes every LogRecord has; anything else on a record came from `extra=` and is logged as a field.
_STANDARD_ATTRS = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "color_message",  # uvicorn's ANSI-coloured copy of the message
}
_HANDLER_NAME = "graphwire"


class RequestIdFilter(logging.Filter):
    """Stamp the current request id (or "-") on every record, and the trace and span ids inside a recorded trace."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get() or "-"
        if (ids := current_ids()) is not None:
            record.trace_id, record.span_id = ids
        return True


def _extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in record.__dict__.items() if k not in _STANDARD_ATTRS and k != "request_id"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, extra fields, exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
            **_extra_fields(record),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    """Human-readable lines; extra fields are appended as key=value."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s [%(request_id)s] %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        extras = " ".join(f"{k}={v}" for k, v in _extra_fields(record).items())
        return f"{line} {extras}" if extras else line


def configure_logging(level: str = "INFO", json_lines: bool = False) -> None:
    """Install graphwire's handler on the root logger (idempotent: a second call replaces it)."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if json_lines else TextFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    # The driver logs every failed connection attempt at WARNING; /health already reports that state.
    logging.getLogger("neo4j").setLevel(max(logging.ERROR, root.level))
    # Uvicorn's own access log duplicates the request log written by the API middleware.
    logging.getLogger("uvicorn.access").disabled = True
