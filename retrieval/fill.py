"""Fill a mode's ranking up to `top_k` from a second mode, each chunk marked with the mode that retrieved it.

The five-stage graph retriever ranks only chunks its facts and matched entities reach, often fewer than asked for
(none when no entity matched). The rest comes from the fill mode (PPR by default), after every graph-ranked chunk.
Facts, entities, excerpts and the abstention reason stay the primary mode's: answerers see what the graph found.
"""

from __future__ import annotations

from retrieval.base import Retriever
from retrieval.models import RetrievalResult


class FilledRetriever:
    def __init__(self, primary: Retriever, fill: Retriever) -> None:
        self.primary = primary
        self.fill = fill
        self.name = primary.name

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        result = self.primary.retrieve(question, top_k)
        ranked = [c.model_copy(update={"retrieved_by": c.retrieved_by or self.primary.name}) for c in result.chunks]
        have = {c.chunk_id for c in ranked}
        filled = 0
        if len(ranked) < top_k:
            extra = self.fill.retrieve(question, top_k)
            for chunk in extra.chunks:
                if len(ranked) >= top_k:
                    break
                if chunk.chunk_id not in have:
                    have.add(chunk.chunk_id)
                    ranked.append(chunk.model_copy(update={"retrieved_by": chunk.retrieved_by or self.fill.name}))
                    filled += 1
            for stage, ms in extra.timings_ms.items():
                result.timings_ms[f"fill_{stage}"] = ms
        result.details["fill"] = {"mode": self.fill.name, "chunks": filled}
        return result.model_copy(update={"chunks": ranked})


def unfilled(retriever: Retriever) -> Retriever:
    """The primary mode of a filled one (hybrid fuses the graph's own ranking, not its fill)."""
    return retriever.primary if isinstance(retriever, FilledRetriever) else retriever
