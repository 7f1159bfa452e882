"""Document access without a graph: the access list's rules, the reader a principal reads as, and the cut of one
retrieval to what a reader may see (retrieval/access.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from graphwire.cli.main import app
from graphwire.core.access import EVERYONE, MAX_ACCESS_ENTRIES, AccessError, Reader, validate_access
from graphwire.core.auth.models import Principal, Role
from graphwire.core.documents import Article
from graphwire.ingest.loaders import load_articles
from graphwire.retrieval.access import READ_DEPTH, AccessMap, AccessUnknownError, Readable, cut, retrieve_as
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


def test_retrieve_as_reads_deeper_for_a_restricted_reader_and_leaves_open_stores_alone() -> None:
    closed = AccessMap(chunks={"a1": ("finance",), "b1": None, "c1": None, "a2": None}, sources={})
    stub = _Retriever(_result())
    seen = retrieve_as(stub, lambda: closed, "q", 2, Reader.of(["rita"]))
    assert stub.asked == [2 * READ_DEPTH] and [c.chunk_id for c in seen.chunks] == ["b1", "c1"]
    stub.asked.clear()
    short = retrieve_as(stub, lambda: closed, "q", 4, Reader.of(["rita"]))  # 3 readable of the 4 the mode has
    assert stub.asked == [4 * READ_DEPTH] and len(short.chunks) == 3  # the mode had fewer than asked: no retry
    stub.asked.clear()
    retrieve_as(stub, lambda: closed, "q", 1, Reader.of(["rita"]))
    assert stub.asked == [READ_DEPTH]
    ids = [f"d{i}" for i in range(READ_DEPTH + 1)]  # the one readable chunk ranks just past the first read
    deep = _Retriever(_result(chunks=[_chunk(i) for i in ids], facts=[], excerpts=[]))
    only_last = AccessMap(chunks={i: ("x",) for i in ids[:-1]} | {ids[-1]: None}, sources={})
    found = retrieve_as(deep, lambda: only_last, "q", 1, Reader.of(["rita"]))
    assert deep.asked == [READ_DEPTH, READ_DEPTH * READ_DEPTH] and [c.chunk_id for c in found.chunks] == ids[-1:]
    assert retrieve_as(stub, lambda: closed, "q", 2, EVERYONE).chunks == stub.result.chunks[:2]
    opened = AccessMap(chunks={"a1": None, "b1": None, "c1": None, "a2": None}, sources={})
    untouched = retrieve_as(stub, lambda: opened, "q", 2, Reader.of(["rita"]))
    assert untouched.details == stub.result.details and untouched.chunks == stub.result.chunks[:2]
    half_known = AccessMap(chunks={"b1": None, "c1": None}, sources={})  # a1, a2 written since
    assert "a1" not in {c.chunk_id for c in retrieve_as(stub, lambda: half_known, "q", 9, Reader.of(["r"])).chunks}
    with pytest.raises(AccessUnknownError):
        retrieve_as(stub, None, "q", 2, Reader.of(["rita"]))


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
