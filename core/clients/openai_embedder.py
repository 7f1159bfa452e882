"""An embedder over any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, LM Studio)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from graphwire.core import tracing
from graphwire.core.clients.embeddings import EmbeddingError, Vectors, l2_normalise
from graphwire.core.settings import EmbeddingBackend, default_of


class OpenAIEmbedder:
    """Any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, LM Studio); rows are re-normalised."""

    backend = EmbeddingBackend.OPENAI.value

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout_s: float = 60.0,
        max_retries: int = default_of("llm_max_retries"),
        client: Any = None,
    ) -> None:
        self.model_id = model
        self.base_url = base_url
        self.batch_size = batch_size
        self._dimension: int | None = None
        if client is None:
            from openai import OpenAI

            client = OpenAI(
                base_url=base_url, api_key=api_key or "not-needed", timeout=timeout_s, max_retries=max_retries
            )
        self._client = client

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = [text if text.strip() else " " for text in texts[start : start + self.batch_size]]
            try:
                with tracing.span(
                    "embed batch", {"graphwire.embedding.texts": len(batch), "graphwire.backend": "openai"}
                ):
                    response = self._client.embeddings.create(model=self.model_id, input=batch)
            except Exception as exc:  # the openai client raises many types; callers only need one
                raise EmbeddingError(f"embedding request to {self.base_url or 'OpenAI'} failed: {exc}") from exc
            rows.extend(item.embedding for item in sorted(response.data, key=lambda item: item.index))
        matrix = l2_normalise(np.asarray(rows, dtype=np.float32))
        self._dimension = int(matrix.shape[1])
        return matrix

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.embed(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.embed([text])[0]
