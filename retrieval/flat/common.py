"""What the flat retrievers share: graph guidance for hybrid search, stage timing, turning positions into results."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from graphwire.core.settings import GuidanceMode  # one definition: HYBRID_GUIDANCE_MODE takes the same values
from graphwire.retrieval.flat.fusion import RRF_K
from graphwire.retrieval.flat.index import IndexSnapshot, Scores
from graphwire.retrieval.models import RankedChunk


class Guidance(BaseModel):
    """Chunks suggested from outside the flat stack (e.g. linked to the graph's matched entities), best first."""

    chunk_ids: list[str] = Field(default_factory=list)
    mode: GuidanceMode = GuidanceMode.BOOST
    weight: float = 1.0  # weight of the guidance ranking in reciprocal-rank fusion (boost mode)


def guidance_mask(snapshot: IndexSnapshot, guidance: Guidance | None) -> npt.NDArray[np.bool_] | None:
    if guidance is None or guidance.mode is not GuidanceMode.RESTRICT:
        return None
    mask = np.zeros(len(snapshot), dtype=bool)
    mask[[snapshot.positions[c] for c in guidance.chunk_ids if c in snapshot.positions]] = True
    return mask


def guidance_bonus(snapshot: IndexSnapshot, guidance: Guidance | None, k: int = RRF_K) -> Scores:
    """The RRF contribution of the guidance ranking: weight / (k + rank) for guided chunks, 0 elsewhere."""
    bonus = np.zeros(len(snapshot), dtype=np.float64)
    if guidance is None or guidance.mode is not GuidanceMode.BOOST:
        return bonus
    rank = 0
    for chunk_id in dict.fromkeys(guidance.chunk_ids):
        position = snapshot.positions.get(chunk_id)
        if position is not None:
            rank += 1
            bonus[position] = guidance.weight / (k + rank)
    return bonus


def ranked_chunks(snapshot: IndexSnapshot, positions: Sequence[int], scores: Scores) -> list[RankedChunk]:
    return [RankedChunk.from_chunk(snapshot.chunks[position], scores[position]) for position in positions]
