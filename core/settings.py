"""One configuration object for every layer, read from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from pathlib import Path
from urllib.parse import urlparse

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class EmbeddingBackend(StrEnum):
    OFFLINE = "offline"  # MiniLM-L6 int8 ONNX shipped in a PyPI package, run with onnxruntime
    OPENAI = "openai"  # any OpenAI-compatible /v1/embeddings endpoint


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    # Neo4j
    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    neo4j_database: str = "neo4j"
    # Where `graphwire neo4j start` keeps its data, password file, pid file and logs.
    neo4j_home: Path = Path(".graphwire/neo4j")
    neo4j_http_port: int = 7474
    neo4j_heap: str = "1g"
    neo4j_pagecache: str = "512m"
    neo4j_start_timeout_s: float = 180.0

    # LLM (any OpenAI-compatible endpoint: OpenAI, Ollama, vLLM, LM Studio). Unset base URL and model = offline.
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model: str | None = None
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 4
    llm_concurrency: int = 4
    llm_temperature: float = 0.0

    # Embeddings
    embedding_backend: EmbeddingBackend = EmbeddingBackend.OFFLINE
    embedding_model: str = "text-embedding-3-small"
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None

    # ChromaDB: a persistent folder, or an HTTP server when chroma_host is set.
    chroma_path: Path = Path(".graphwire/chroma")
    chroma_host: str | None = None
    chroma_port: int = 8000
    chroma_collection: str = "graphwire_chunks"

    # Ingestion
    schema_path: Path | None = None
    chunk_size: int = 1000
    chunk_overlap: int = 150
    ingest_batch_size: int = 500
    extraction_cache_path: Path = Path(".graphwire/cache/extractions.sqlite")
    fuzzy_merge_threshold: float = 92.0

    # API
    api_key: SecretStr | None = None
    api_host: str = "127.0.0.1"
    api_port: int = 8000
    max_question_chars: int = 1000
    max_top_k: int = 50
    request_timeout_s: float = 30.0

    # Retrieval caps
    key_fact_cap: int = 10
    bridge_fact_cap: int = 30
    direct_fact_cap: int = 20
    excerpt_cap: int = 10
    excerpt_chars: int = 800
    ppr_damping: float = Field(default=0.5, gt=0.0, lt=1.0)

    log_level: str = "INFO"
    log_json: bool = False

    @model_validator(mode="after")
    def _password_required_for_remote(self) -> Settings:
        host = urlparse(self.neo4j_uri).hostname or ""
        if self.neo4j_password is None and host not in LOCAL_HOSTS:
            raise ValueError(f"NEO4J_PASSWORD must be set when NEO4J_URI points at a non-local host ({host!r})")
        return self

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


@cache
def get_settings() -> Settings:
    return Settings()
