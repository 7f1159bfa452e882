"""Each default is declared once: a component whose default is a setting's takes it from `default_of(setting)`.

`PAIRS` lists every such component default. Each must equal the setting's default and must be written as
`default_of("<setting>")` in the source (alone, or as a `Field(default=...)`), so a literal typed next to it again, or
a setting's default changed without the component, fails here.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

from graphwire.core.clients import embeddings
from graphwire.core.clients.llm_retry import RetryPolicy
from graphwire.core.clients.openai_embedder import OpenAIEmbedder
from graphwire.core.servers.neo4j_server import LocalNeo4j
from graphwire.core.settings import Settings, default_of
from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.pipeline import IngestOptions
from graphwire.ingest.resolve import EntityResolver
from graphwire.ingest.writer import GraphWriter
from graphwire.retrieval.flat import index
from graphwire.retrieval.graph.filtering import FactCaps
from graphwire.retrieval.graph_version import GraphVersion
from graphwire.retrieval.hybrid import HybridConfig
from graphwire.retrieval.ppr.config import ScoringOptions
from graphwire.retrieval.ppr.export import SnapshotCache
from graphwire.retrieval.router import default_rules
from graphwire.retrieval.services import GraphServices

# (owner: a class's fields, a function's parameters or a module's constants; name there; the setting)
PAIRS: list[tuple[Any, str, str]] = [
    (IngestOptions, "chunk_size", "chunk_size"),
    (IngestOptions, "chunk_overlap", "chunk_overlap"),
    (IngestOptions, "write_batch_size", "ingest_batch_size"),
    (IngestOptions, "write_threads", "ingest_write_threads"),
    (IngestOptions, "fuzzy_threshold", "fuzzy_merge_threshold"),
    (IngestOptions, "provenance_cap", "provenance_cap"),
    (chunk_article, "size", "chunk_size"),
    (chunk_article, "overlap", "chunk_overlap"),
    (GraphWriter.__init__, "batch_size", "ingest_batch_size"),
    (GraphWriter.__init__, "threads", "ingest_write_threads"),
    (EntityResolver.__init__, "fuzzy_threshold", "fuzzy_merge_threshold"),
    (FactCaps, "key", "key_fact_cap"),
    (FactCaps, "bridge", "bridge_fact_cap"),
    (FactCaps, "direct", "direct_fact_cap"),
    (FactCaps, "excerpts", "excerpt_cap"),
    (FactCaps, "excerpt_chars", "excerpt_chars"),
    (index, "BM25_K1", "bm25_k1"),
    (index, "BM25_B", "bm25_b"),
    (ScoringOptions, "damping", "ppr_damping"),
    (ScoringOptions, "method", "ppr_method"),
    (ScoringOptions, "passage_seed_weight", "ppr_passage_seeds"),
    (ScoringOptions, "relation_cue_weight", "ppr_relation_cues"),
    (HybridConfig, "guidance_mode", "hybrid_guidance_mode"),
    (HybridConfig, "guidance_weight", "hybrid_guidance_weight"),
    (HybridConfig, "graph_depth", "hybrid_graph_depth"),
    (default_rules, "unanswerable_mode", "router_unanswerable_mode"),
    (GraphServices.__init__, "check_every_s", "ppr_snapshot_check_s"),
    (GraphVersion.__init__, "check_every_s", "ppr_snapshot_check_s"),
    (SnapshotCache.__init__, "check_interval_s", "ppr_snapshot_check_s"),
    (RetryPolicy, "max_retries", "llm_max_retries"),
    (RetryPolicy, "backoff_base_s", "llm_backoff_base_s"),
    (RetryPolicy, "backoff_max_s", "llm_backoff_max_s"),
    (OpenAIEmbedder.__init__, "max_retries", "llm_max_retries"),
    (embeddings.OnnxEmbedder.__init__, "batch_size", "embedding_batch_size"),
    (embeddings.BgeSmallOnnxEmbedder.__init__, "batch_size", "embedding_batch_size"),
    (LocalNeo4j.__init__, "http_port", "neo4j_http_port"),
    (LocalNeo4j.__init__, "heap", "neo4j_heap"),
    (LocalNeo4j.__init__, "pagecache", "neo4j_pagecache"),
    (LocalNeo4j.start, "timeout_s", "neo4j_start_timeout_s"),
]


def _label(owner: Any, name: str) -> str:
    return f"{getattr(owner, '__qualname__', getattr(owner, '__name__', owner))}.{name}"


def _runtime_default(owner: Any, name: str) -> Any:
    if isinstance(owner, ModuleType):
        return getattr(owner, name)
    if isinstance(owner, type) and issubclass(owner, BaseModel):
        return owner.model_fields[name].default
    if dataclasses.is_dataclass(owner):
        return next(f.default for f in dataclasses.fields(owner) if f.name == name)
    return inspect.signature(owner).parameters[name].default


def _default_node(owner: Any, name: str) -> ast.expr | None:
    """The expression the source gives as the default of `name`: a field's value (or its `Field(default=...)`), a
    parameter's default or a module constant's value."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(owner)))
    if isinstance(owner, ModuleType | type):
        body = tree.body if isinstance(owner, ModuleType) else tree.body[0].body  # type: ignore[attr-defined]
        for node in body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                return _unwrap_field(node.value)
        return None
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return next((default for arg, default in pairs if arg.arg == name), None)


def _unwrap_field(value: ast.expr | None) -> ast.expr | None:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "Field":
        return next((k.value for k in value.keywords if k.arg == "default"), None)
    return value


def _is_default_of(node: ast.expr | None, setting: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "default_of"
        and [a.value for a in node.args if isinstance(a, ast.Constant)] == [setting]
    )


@pytest.mark.parametrize(("owner", "name", "setting"), PAIRS, ids=[_label(o, n) for o, n, _ in PAIRS])
def test_a_component_default_is_the_settings_and_declared_there(owner: Any, name: str, setting: str) -> None:
    assert _runtime_default(owner, name) == Settings.model_fields[setting].default
    node = _default_node(owner, name)
    assert _is_default_of(node, setting), (
        f"{_label(owner, name)} must default to default_of({setting!r}), not {ast.unparse(node) if node else None}"
    )


def test_default_of_is_the_settings_field_default() -> None:
    assert default_of("bm25_k1") == Settings.model_fields["bm25_k1"].default
    with pytest.raises(KeyError):
        default_of("no_such_setting")
