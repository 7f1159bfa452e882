"""Server-Sent Events read back in tests: (event name, JSON data) pairs as they arrive (a generator, so a test can
hang up mid-stream); the OpenAI stream's `[DONE]` kept as text."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any


def sse_events(lines: Iterable[str]) -> Iterator[tuple[str, Any]]:
    name = "message"
    for line in lines:
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data = line.removeprefix("data: ")
            yield name, data if data == "[DONE]" else json.loads(data)
            name = "message"
