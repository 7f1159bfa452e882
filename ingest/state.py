"""A small ingest-state record per input, so `--resume` skips the documents a killed run already finished."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pydantic import BaseModel, Field


class IngestState(BaseModel):
    input: str
    extractor: str
    schema_fingerprint: str
    done: dict[str, str] = Field(default_factory=dict)  # document id -> content hash

    def is_done(self, doc_id: str, content_hash: str) -> bool:
        return self.done.get(doc_id) == content_hash


class StateStore:
    """One JSON file per (input path, extractor, schema), rewritten atomically after every committed batch."""

    def __init__(self, folder: Path, input_ref: str, extractor: str, schema_fingerprint: str) -> None:
        digest = hashlib.sha256(f"{input_ref}|{extractor}|{schema_fingerprint}".encode()).hexdigest()[:16]
        self.path = folder / f"ingest-{digest}.json"
        self.state = IngestState(input=input_ref, extractor=extractor, schema_fingerprint=schema_fingerprint)

    def load(self) -> IngestState:
        if self.path.exists():
            self.state = IngestState.model_validate_json(self.path.read_text(encoding="utf-8"))
        return self.state

    def mark(self, done: dict[str, str]) -> None:
        self.state.done.update(done)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(self.state.model_dump_json(), encoding="utf-8")
        os.replace(tmp, self.path)

    def reset(self) -> None:
        self.state.done.clear()
        self.path.unlink(missing_ok=True)
