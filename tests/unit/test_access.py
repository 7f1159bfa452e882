"""Document access without a graph: the access list's rules, the reader a principal reads as, and the cut of one
retrieval to what a reader may see (retrieval/access.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from graphwire.cli.main import app
from graphwire.core.access import EVERYONE, MAX_ACCESS_ENTRIES, AccessError, Reader, validate_access
from graphwire.core.auth.models import Principal, Role
from graphwire.core.documents import Article
from graphwire.ingest.loaders import load_articles
from graphwire.retrieval.access import AccessMap, AccessUnknownError, Readable, cut, retrieve_as
from graphwire.retrieval.graph.retriever import NO_MATCH_REASON
from graphwire.retrieval.models import (
    EntityMatch,
    Excerpt,
    Fact,
    FactTier,
    MatchTier,
    QuestionSummary,
    RankedChunk,
    RetrievalResult,
)
from graphwire.retrieval.question.outlets import PublicationMention
from graphwire.retrieval.registry import RetrievalContext
from graphwire.retrieval.scope import Scope


def test_access_lists_are_sorted_sets_of_plain_names() -> None:
    assert validate_access(None) is None
    assert validate_access(["legal", "finance", "legal", "ana@corp.example"]) == [
        "ana@corp.example",
        "finance",
        "legal",
    ]
    for bad in ([], ["finance", ""], ["-x"], ["a b"], ["x" * 101], ["' OR 1=1 //"], "finance"):
        with pytest.raises(AccessError):
            validate_access(bad)  # type: ignore[arg-type]
    with pytest.raises(AccessError, match="at most 100"):
        validate_access([f"g{i}" for i in range(MAX_ACCESS_ENTRIES + 1)])


def test_an_article_without_access_hashes_as_before_and_a_changed_list_is_a_change() -> None:
    fields = {"title": "T", "body": "B", "source": "S", "url": "u1"}
    plain = Article(**fields)
    assert "access" not in plain.model_dump_json(exclude={"segments", "access"})
    assert plain.content_hash == Article.model_validate(fields).content_hash
    finance, legal = Article(**fields, access=["finance"]), Article(**fields, access=["legal"])
    assert len({plain.content_hash, finance.content_hash, legal.content_hash}) == 3
    assert plain.doc_id == finance.doc_id  # the same document, readable by others now
    with pytest.raises(ValidationError, match="access"):
        Article(**fields, access=["no spaces allowed"])


def test_readers() -> None:
    alice = Reader.of(["alice", "finance"])
    assert alice.can_read(None) and alice.can_read(["finance", "legal"]) and not alice.can_read(["legal"])
    assert EVERYONE.can_read(["legal"]) and EVERYONE.unrestricted and EVERYONE.param() is None
    assert alice.param() == ["alice", "finance"]


def test_admins_read_everything_and_others_read_as_their_name_and_groups() -> None:
    def principal(**fields: object) -> Principal:
        return Principal.model_validate({"id": "p1", "name": "rita", "via": "key", **fields})

    assert principal(server_admin=True).reader() is EVERYONE
    assert principal(roles={"default": Role.ADMIN}).reader() is EVERYONE
    assert principal(roles={"default": Role.WRITER}, groups=("finance",)).reader() == Reader.of(["rita", "finance"])
    assert principal().reader() == Reader.of(["rita"])


def _chunk(chunk_id: str) -> RankedChunk:
    return RankedChunk(chunk_id=chunk_id, document_id=chunk_id[0], title="t", text=f"text of {chunk_id}")


def _result(**fields: object) -> RetrievalResult:
    entity = EntityMatch(mention="Lumen", key="org:lumen", name="Lumen Labs", label="Organization",
                         tier=MatchTier.EXACT, score=1.0)  # fmt: skip
    fact = Fact(tier=FactTier.DIRECT, subject="Paradigm", subject_label="Organization", relationship="INVESTED_IN",
                object="Lumen Labs", object_label="Organization", chunk_ids=["a1", "b1", "c1"],
                evidence=["sentence of a1", "sentence of b1"])  # fmt: skip
    outlets = [
        PublicationMention(mention="the Ledger", start=0, end=10, name="Ledger", sources=["Ledger"]),
        PublicationMention(mention="Circuit", start=20, end=27, name="Circuit", sources=["Circuit"]),
    ]
    base = {
        "mode": "graph", "chunks": [_chunk(c) for c in ("a1", "b1", "c1", "a2")], "facts": [fact],
        "entities": [entity], "analysis": QuestionSummary(outlets=outlets),
        "excerpts": [Excerpt(chunk_id=c, title="t", text="x") for c in ("a1", "b1")], "details": {"seeds": ["x"]},
    }  # fmt: skip
    return RetrievalResult.model_validate({**base, **fields})


def test_the_cut_keeps_readable_chunks_facts_with_their_evidence_and_readable_outlets() -> None:
    readable = Readable(chunks={"b1", "c1", "a2"}, entities={"org:lumen"}, sources={"Circuit"})
    seen = cut(_result(), readable, top_k=2)
    assert [c.chunk_id for c in seen.chunks] == ["b1", "c1"]
    [fact] = seen.facts
    assert fact.chunk_ids == ["b1", "c1"] and fact.evidence == ["sentence of b1"]  # c1 had no sentence
    assert [e.key for e in seen.entities] == ["org:lumen"] and seen.abstain_reason is None
    assert [e.chunk_id for e in seen.excerpts] == ["b1"] and seen.details == {}
    assert seen.analysis is not None
    assert [o.name for o in seen.analysis.outlets] == ["Circuit"]
    assert seen.analysis.unknown_publications == ["the Ledger"]  # as for an outlet the corpus does not have


def test_a_question_whose_every_match_is_unreadable_gets_what_a_question_matching_nothing_gets() -> None:
    readable = Readable(chunks={"a1", "b1"}, entities=set(), sources=set())
    seen = cut(_result(), readable, top_k=10)
    assert seen.abstain_reason == NO_MATCH_REASON
    assert seen.entities == [] and seen.facts == []
    assert [c.chunk_id for c in seen.chunks] == ["a1", "b1"]  # passages it may read still rank


def test_a_fact_with_no_readable_chunk_is_dropped() -> None:
    readable = Readable(chunks={"a2"}, entities={"org:lumen"}, sources={"Ledger", "Circuit"})
    assert cut(_result(), readable, top_k=10).facts == []


class _Retriever:
    name = "stub"

    def __init__(self, result: RetrievalResult) -> None:
        self.result = result
        self.asked: list[int] = []

    def retrieve(self, question: str, top_k: int = 10) -> RetrievalResult:
        self.asked.append(top_k)
        return self.result.model_copy(update={"chunks": self.result.chunks[:top_k]})


def test_the_access_map_fails_closed_and_reads_entities_and_outlets_by_their_access_lists() -> None:
    access = AccessMap(
        chunks={"a1": ("finance",), "b1": None, "c1": ("legal",), "a2": None},
        sources={"Ledger": [("legal",)]},
        entities={"org:lumen": [("legal",), ("finance", "press")]},
    )
    seen = access.readable(_result(), Reader.of(["finance"]))
    assert seen.chunks == {"a1", "b1", "a2"} and seen.entities == {"org:lumen"} and seen.sources == {"Circuit"}
    outsider = access.readable(_result(), Reader.of(["nobody"]))
    assert outsider.chunks == {"b1", "a2"} and outsider.entities == set()
    assert access.readable(_result(chunks=[_chunk("z9")]), EVERYONE).chunks == {"a1", "b1", "c1"}  # z9: unknown


class _Context:
    """What `retrieve_as` asks of a retrieval context: the mode, the access map, and the mode of a scoped view."""

    def __init__(self, shared: RetrievalResult, scoped: RetrievalResult, access: AccessMap | None) -> None:
        self.shared, self.scoped_result, self.map = _Retriever(shared), scoped, access
        self.scopes: list[Scope] = []

    def retriever(self, mode: str) -> _Retriever:
        return self.shared

    def access(self) -> Callable[[], AccessMap] | None:
        found = self.map
        return None if found is None else lambda: found

    def scoped(self, scope: Scope) -> _Context:
        self.scopes.append(scope)
        return _Context(self.scoped_result, self.scoped_result, self.map)

    def services(self) -> SimpleNamespace:
        """A scoped view's services: its snapshot holds the entities its readable chunks support."""
        snapshot = SimpleNamespace(entity_index={"org:lumen": 0})
        return SimpleNamespace(snapshots=SimpleNamespace(snapshot=lambda: snapshot))


def _ask(ctx: _Context, top_k: int, reader: Reader) -> RetrievalResult:
    return retrieve_as(cast(RetrievalContext, ctx), "stub", "q", top_k, reader)


def test_a_restricted_reader_is_served_by_its_scope_and_an_open_store_is_left_alone() -> None:
    closed = AccessMap(
        chunks={"a1": ("finance",), "b1": None, "c1": None, "a2": None},
        sources={"Ledger": [("finance",)]},
        version="v1",
    )
    ghost = EntityMatch(mention="Vault", key="org:vault", name="Vault", label="Organization", tier=MatchTier.EXACT,
                        score=1.0)  # fmt: skip
    scoped = _result(chunks=[_chunk("b1"), _chunk("c1"), _chunk("a1")], excerpts=[])
    scoped.entities.append(ghost)  # not in the scope's snapshot: the guard drops it
    ctx = _Context(_result(), scoped, closed)
    seen = _ask(ctx, 2, Reader.of(["rita"]))
    assert [c.chunk_id for c in seen.chunks] == ["b1", "c1"] and seen.details == {}
    assert [e.key for e in seen.entities] == ["org:lumen"] and [f.chunk_ids for f in seen.facts] == [["b1", "c1"]]
    assert seen.analysis is not None and [o.name for o in seen.analysis.outlets] == ["Circuit"]
    [scope] = ctx.scopes
    assert scope.chunks == {"b1", "c1", "a2"} and scope.access == frozenset() and scope.hidden_sources == {"Ledger"}
    assert scope.lists == [] and _ask(ctx, 9, Reader.of(["rita"])).chunks[-1].chunk_id == "c1"  # a1: cut all the same
    assert closed.scope(Reader.of(["bob"])) is scope  # readers of the same lists share one scope
    assert _ask(ctx, 2, EVERYONE).chunks == _result().chunks[:2] and len(ctx.scopes) == 2
    finance = _ask(ctx, 2, Reader.of(["finance"]))  # it may read every list: the shared mode, no scope
    assert len(ctx.scopes) == 2 and finance.details == _result().details
    half_known = AccessMap(chunks={"b1": None, "c1": None}, sources={})  # a1, a2 written since the map was read
    assert "a1" not in {c.chunk_id for c in _ask(_Context(_result(), scoped, half_known), 9, Reader.of(["r"])).chunks}
    with pytest.raises(AccessUnknownError):
        _ask(_Context(_result(), scoped, None), 2, Reader.of(["rita"]))


def test_a_scope_is_named_by_the_graph_version_and_the_lists_read() -> None:
    chunks: dict[str, tuple[str, ...] | None] = {"a": ("finance",), "b": ("legal",), "c": None}
    v1, v2 = AccessMap(chunks, {}, version="v1"), AccessMap(chunks, {}, version="v2")
    finance, legal = v1.scope(Reader.of(["finance"])), v1.scope(Reader.of(["legal"]))
    assert finance is not None and legal is not None and finance.key != legal.key
    assert finance.chunks == {"a", "c"} and finance.lists == [["finance"]]
    other = v2.scope(Reader.of(["finance"]))
    assert other is not None and other.key != finance.key and other.chunks == finance.chunks
    assert v1.scope(Reader.of(["finance", "legal"])) is None


def test_a_record_carries_its_access_list_and_a_bad_one_is_named(tmp_path: Path) -> None:
    records = [
        {"title": "Memo", "body": "Text.", "access": ["finance", "legal"]},
        {"title": "Open", "body": "Text."},
        {"title": "Bad", "body": "Text.", "access": ["no spaces"]},
    ]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    loaded = load_articles(path)
    assert [a.access for a in loaded.articles] == [["finance", "legal"], None]
    [error] = loaded.errors
    assert error.location == "records.jsonl:3" and "'no spaces' is not a group or principal name" in error.reason


def test_graphwire_ask_refuses_a_bad_reader_name_in_one_line_before_reaching_neo4j() -> None:
    result = CliRunner().invoke(app, ["ask", "Who leads Lumen Labs?", "--reader", "finance, no spaces"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: --reader: access entry 'no spaces' is not a group or principal name (1-100 characters: letters, "
        "digits and . _ @ : + -, starting with a letter or digit)"
    ]
