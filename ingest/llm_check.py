"""`graphwire llm check`: try every extraction mode on a sample chunk and recommend the one to use.

Each mode (json_schema, tools, prompt) extracts the sample once, without retries. A mode passes when its reply parsed
without repair and kept at least one entity; the recommendation is the passing mode that finished fastest. The report
gives each mode's prompt and completion tokens, seconds and tokens per second, and timeouts that fit what was measured:
LLM_TIMEOUT_S for a full-size chunk at the slowest passing speed with a threefold margin, REQUEST_TIMEOUT_S above it.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from pydantic import BaseModel

from graphwire.core.clients.llm import EXTRACTION_MODES, LLMClient, require_llm
from graphwire.core.documents import Chunk
from graphwire.core.settings import Settings
from graphwire.ingest.extractors.llm import LLMExtractor
from graphwire.ingest.models import Extraction
from graphwire.schema.model import GraphSchema, default_schema_path

MIN_LLM_TIMEOUT_S = 30.0
RETRIEVAL_ALLOWANCE_S = 30.0  # what REQUEST_TIMEOUT_S keeps for retrieval beside the LLM answer


class ModeResult(BaseModel):
    mode: str
    ok: bool = False  # parsed without repair and kept at least one entity
    error: str | None = None
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    entities: int = 0
    relationships: int = 0
    dropped: int = 0  # entities and relationships the checks removed (off-schema, not in the chunk)
    repaired: bool = False
    truncated: bool = False

    @property
    def tokens_per_s(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds else 0.0


class CheckReport(BaseModel):
    base_url: str
    model: str
    sample_chars: int
    results: list[ModeResult]
    recommended_mode: str | None
    suggested_llm_timeout_s: float | None
    suggested_request_timeout_s: float | None


def sample_path(settings: Settings) -> Path:
    """The schema's sample chunk: `<schema>.sample.txt` beside the schema file (schema/news.sample.txt)."""
    schema_file = settings.schema_path or default_schema_path()
    return schema_file.with_name(schema_file.stem + ".sample.txt")


def check(settings: Settings, schema: GraphSchema, sample: str) -> CheckReport:
    """Warm the server's prompt cache with the extraction prompt, then extract `sample` once per mode."""
    base_url, model = require_llm(settings)
    chunk = Chunk(id="llm-check", document_id="llm-check", index=0, text=sample, title="sample")
    quick = settings.model_copy(update={"llm_max_retries": 0, "llm_concurrency": 1})
    _warm(quick, schema)
    results = [_try(quick, schema, mode, chunk) for mode in EXTRACTION_MODES]
    passing = [r for r in results if r.ok]
    best = min(passing, key=lambda r: r.seconds) if passing else None
    llm_timeout = _llm_timeout(passing, len(sample), settings.chunk_size)
    return CheckReport(
        base_url=base_url,
        model=model,
        sample_chars=len(sample),
        results=results,
        recommended_mode=best.mode if best else None,
        suggested_llm_timeout_s=llm_timeout,
        suggested_request_timeout_s=llm_timeout + RETRIEVAL_ALLOWANCE_S if llm_timeout else None,
    )


def _warm(settings: Settings, schema: GraphSchema) -> None:
    """One short call with the extraction system prompt, so the first mode does not pay for reading it alone."""
    extractor = LLMExtractor(settings, schema)
    try:
        LLMClient(settings).chat(extractor.messages("OK")[:1] + [{"role": "user", "content": "Reply OK."}])
    except Exception:  # noqa: BLE001 - the modes below report what fails, with the reason
        return


def _try(settings: Settings, schema: GraphSchema, mode: str, chunk: Chunk) -> ModeResult:
    extractor = LLMExtractor(settings.model_copy(update={"llm_extraction_mode": mode}), schema)
    started = time.perf_counter()
    [outcome] = extractor.extract([chunk])
    result = ModeResult(mode=mode, seconds=round(time.perf_counter() - started, 2))
    usage, stats = extractor.usage.snapshot(), extractor.stats
    result.prompt_tokens, result.completion_tokens = usage.prompt_tokens, usage.completion_tokens
    result.repaired, result.truncated = stats.repaired > 0, stats.truncated > 0
    result.dropped = sum(stats.pruned_entities.values()) + sum(stats.pruned_relations.values())
    if not isinstance(outcome, Extraction):
        result.error = outcome.reason
        return result
    result.entities, result.relationships = len(outcome.entities), len(outcome.relations)
    result.ok = not result.repaired and result.entities > 0
    if not result.ok:
        result.error = "reply needed JSON repair" if result.repaired else "no entity kept"
    return result


def _llm_timeout(passing: list[ModeResult], sample_chars: int, chunk_chars: int) -> float | None:
    if not passing:
        return None
    slowest = max(r.seconds for r in passing)
    full_chunk = slowest * max(1.0, chunk_chars / max(1, sample_chars))
    return float(max(MIN_LLM_TIMEOUT_S, math.ceil(3 * full_chunk / 10) * 10))
