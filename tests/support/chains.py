"""The `chains` test corpus (tests/data/chains.jsonl): seven original news-style articles with known multi-hop chains.

Chains: a supplier of a supplier (Quarrow Minerals -> Brightcell Energy -> Kestrel Motors), a board member linking
two companies (Mara Ellison on Lumen Labs and Corvid Analytics), two outlets reporting the same recall on different
dates (The Harbor Ledger on 2024-03-04, Northgate Daily on 2024-03-09), and a look-alike name for the coverage rule
(Hyperscalers Group). Each record carries its gold entities and relations, so the graph the retrieval tests see does
not depend on how well the offline extractor reads these sentences; everything else is the real ingest pipeline.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article, Chunk
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction
from graphwire.ingest.pipeline import IngestOptions, ingest_articles
from graphwire.schema.model import load_schema

CHAINS_PATH = Path(__file__).resolve().parents[1] / "data" / "chains.jsonl"


def chain_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CHAINS_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]


def chain_articles() -> list[Article]:
    fields = set(Article.model_fields)
    return [Article.model_validate({k: v for k, v in r.items() if k in fields}) for r in chain_records()]


class GoldExtractor:
    """Returns each article's annotated entities and relations for its chunks (an `Extractor`)."""

    name = "gold"
    version = "1"

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.by_title = {r["title"]: r for r in records}

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        results: list[Extraction | ExtractionFailure] = []
        for chunk in chunks:
            record = self.by_title.get(chunk.title)
            if record is None:
                results.append(ExtractionFailure(chunk.id, "no gold annotation for this title"))
                continue
            entities = [ExtractedEntity.model_validate(e) for e in record["entities"]]
            relations = [ExtractedRelation.model_validate(r) for r in record["relations"]]
            results.append(Extraction(chunk_id=chunk.id, entities=entities, relations=relations, extractor=self.name))
        return results


def ingest_chains(graph: Graph) -> None:
    """Write the chains corpus into `graph` through the real pipeline (gold extraction)."""
    records = chain_records()
    report = ingest_articles(
        chain_articles(),
        graph,
        GoldExtractor(records),
        options=IngestOptions(progress=False, force=True),
        schema=load_schema(),
    )
    assert not report.failures, report.failures
