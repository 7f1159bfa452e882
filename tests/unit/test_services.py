"""One set of graph services per process: the refreshing cache shape, and every mode of a context sharing them."""

from __future__ import annotations

from pathlib import Path

from graphwire.core.settings import Settings
from graphwire.core.stores.refresh import Derived, Refreshing
from graphwire.retrieval.registry import RetrievalContext


def test_refreshing_rebuilds_only_when_the_version_changes() -> None:
    version = {"v": 1}
    builds: list[int] = []

    def build(v: int) -> str:
        builds.append(v)
        return f"value {v}"

    cache = Refreshing(lambda: version["v"], build, check_every_s=0)
    assert cache.current is None
    assert cache.get() == "value 1" and cache.get() == "value 1" and builds == [1]
    version["v"] = 2
    assert cache.get() == "value 2" and builds == [1, 2] and cache.builds == 2
    cache.invalidate()
    assert cache.current is None and cache.get() == "value 2" and builds == [1, 2, 2]


def test_refreshing_reads_the_version_at_most_every_interval() -> None:
    reads: list[int] = []

    def version() -> int:
        reads.append(1)
        return len(reads)  # a new version on every read

    cache = Refreshing(version, lambda v: v, check_every_s=3600)
    first = cache.get()
    assert cache.get() == first and len(reads) == 1  # inside the interval: not even checked


class _NoGraph:
    """Stands in for a Graph: building the modes does no I/O (every cache loads on first use)."""


def test_every_mode_of_a_context_shares_one_set_of_graph_services(tmp_path: Path) -> None:
    from graphwire.retrieval.fill import unfilled
    from graphwire.retrieval.graph import GraphRetriever
    from graphwire.retrieval.hybrid import HybridRetriever
    from graphwire.retrieval.ppr.retriever import PPRRetriever
    from graphwire.retrieval.router import AutoRetriever

    graph = _NoGraph()
    settings = Settings(chroma_path=tmp_path, chroma_collection="services_test", llm_base_url=None, llm_model=None)
    ctx = RetrievalContext(settings, graph=lambda: graph)  # type: ignore[arg-type, return-value]
    services = ctx.services()
    assert ctx.services() is services

    graph_mode = unfilled(ctx.retriever("graph"))
    assert isinstance(graph_mode, GraphRetriever)
    assert graph_mode.names is services.names and graph_mode.aliases is services.aliases
    assert graph_mode.matcher is services.matcher and graph_mode.templates.chunks is services.chunks

    ppr = ctx.retriever("ppr")
    assert isinstance(ppr, PPRRetriever)
    assert ppr.cache is services.snapshots and ppr.chunks is services.chunks
    assert ppr.cache.version is services.version is services.names.version  # one change signal

    hybrid = ctx.retriever("hybrid")
    assert isinstance(hybrid, HybridRetriever)
    assert hybrid.graph_retriever is graph_mode and hybrid.flat is ctx.retriever("flat_plus")

    auto = ctx.retriever("auto")
    assert isinstance(auto, AutoRetriever)
    assert auto.retriever_for("hybrid") is hybrid and auto.retriever_for("ppr") is ppr
    assert ctx.retriever("graph") is ctx.retriever("graph")


def test_expire_forces_a_check_even_with_an_interval_longer_than_the_machines_uptime() -> None:
    """The monotonic clock starts near 0 at boot: an expiry must not depend on how long the machine has been up."""
    reads: list[int] = []

    def version() -> int:
        reads.append(1)
        return len(reads)

    cache = Refreshing(version, lambda v: v, check_every_s=1e12)  # far longer than any uptime
    assert cache.get() == 1 and cache.get() == 1
    cache.expire()
    assert cache.get() == 2 and len(reads) == 2


def test_a_derived_value_is_made_again_only_when_a_source_is_replaced() -> None:
    made: list[tuple[object, ...]] = []
    view: Derived[int] = Derived(lambda *sources: made.append(sources) or len(made))
    first, second = [1], [1]  # equal, not the same object
    assert view.current is None and view.of(first) == 1 and view.of(first) == 1
    assert view.of(second) == 2 and view.of(second, first) == 3 and view.of(second, first) == 3
    assert view.current == 3 and len(made) == 3
