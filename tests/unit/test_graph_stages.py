"""Stages 1, 2 and 4 of the graph retriever without Neo4j: spans, tiers, date windows, caps and chunk ranking."""

from __future__ import annotations

from datetime import date

import pytest

from graphwire.core.names import match_form
from graphwire.retrieval.graph.aliases import analyse_question
from graphwire.retrieval.graph.filtering import FactCaps, excerpt, rank_chunks, select_facts
from graphwire.retrieval.graph.matching import MatchPolicy, classify
from graphwire.retrieval.graph.models import CandidateChunk, MentionOrigin, RawFact, TemplateOutput
from graphwire.retrieval.graph.names import NameIndex, build_index
from graphwire.retrieval.models import FactTier, MatchTier
from graphwire.schema.model import load_schema

POLICY = MatchPolicy()


def _index() -> NameIndex:
    rows = [
        {"key": "Person:sam bankman fried", "name": "Sam Bankman-Fried", "label": "Person", "aliases": ["SBF"]},
        {"key": "Organization:ftx", "name": "FTX", "label": "Organization", "aliases": []},
        {"key": "Organization:kestrel motors", "name": "Kestrel Motors", "label": "Organization", "aliases": []},
        {"key": "Publication:the verge", "name": "The Verge", "label": "Publication", "aliases": []},
        {"key": "Publication:techcrunch", "name": "TechCrunch", "label": "Publication", "aliases": []},
    ]
    sources = [{"source": "The Verge", "keys": ["Publication:the verge"]}, {"source": "TechCrunch", "keys": []}]
    return build_index(rows, sources, (5, 0), load_schema())


def test_normalise_drops_possessive_accents_and_punctuation() -> None:
    assert match_form("Sam Bankman-Fried's") == "sam bankman fried"
    assert match_form("Société Générale") == "societe generale"


@pytest.mark.parametrize(
    ("mention", "surface", "tier"),
    [
        ("sam bankman fried", "sam bankman fried", MatchTier.EXACT),
        ("kestrel", "kestrel motors", MatchTier.PREFIX),
        ("bankman fried", "sam bankman fried", MatchTier.SUBSTRING),
        ("kestral motors", "kestrel motors", MatchTier.FUZZY),
    ],
)
def test_classify_tiers(mention: str, surface: str, tier: MatchTier) -> None:
    result = classify(mention, surface, POLICY)
    assert result is not None and result[0] is tier


def test_partial_matches_need_whole_tokens_and_coverage() -> None:
    assert classify("hype", "hyperscalers", POLICY) is None  # inside a word: never
    assert classify("hype", "hyperscalers group", POLICY) is None
    assert classify("al", "al jazeera media network", POLICY) is None  # 2/24 of the name: below 30%
    assert classify("apple", "apple", POLICY) == (MatchTier.EXACT, 100.0)


def test_stage1_finds_gazetteer_names_aliases_and_publications() -> None:
    analysis = analyse_question("Did SBF tell The Verge that FTX and Pellucid Robotics were fine?", _index())
    by_text = {m.text: m for m in analysis.mentions}
    assert by_text["SBF"].exact_keys == ["Person:sam bankman fried"]
    assert by_text["FTX"].origin is MentionOrigin.GAZETTEER
    assert by_text["Pellucid Robotics"].origin is MentionOrigin.SPAN  # unknown: left to stage 2
    assert [p.key for p in analysis.publications] == ["Publication:the verge"]
    assert "Did" not in by_text and "The Verge" not in by_text


def test_stage1_publication_without_document_link_resolves_by_name_and_dates_become_windows() -> None:
    analysis = analyse_question(
        "Was the TechCrunch article published on October 5, 2023 about FTX?",
        _index(),
    )
    assert [p.name for p in analysis.publications] == ["TechCrunch"]
    [window] = analysis.dates
    assert window.start == window.end == date(2023, 10, 5)
    assert window.sources == ["TechCrunch"]


def test_stage1_yearless_and_relative_dates() -> None:
    analysis = analyse_question("What did FTX say on October 5 and before November 2023?", _index())
    on, before = analysis.dates
    assert (on.md_start, on.md_end, on.start) == ("10-05", "10-05", None)
    assert before.start is None and before.end == date(2023, 10, 31)


def _raw(s: str, rel: str, o: str, chunks: list[str], hops: int = 1, named: int = 0) -> RawFact:
    return RawFact(
        subject=s,
        subject_key=f"K:{s}",
        subject_label="Organization",
        relationship=rel,
        object=o,
        object_key=f"K:{o}",
        object_label="Organization",
        chunk_ids=chunks,
        hops=hops,
        named_hits=named,
    )


def test_select_facts_dedupes_across_tiers_and_applies_caps() -> None:
    key = _raw("A", "SUPPLIES", "B", ["c1"])
    out = TemplateOutput(
        key=[key],
        bridge=[[_raw("A", "SUPPLIES", "B", ["c1"]), _raw("M", "OWNS", "B", ["c2"])]],
        direct=[_raw("A", f"R{i}", f"X{i}", [f"d{i}"]) for i in range(5)],
    )
    facts = select_facts(out, "who supplies B", FactCaps(key=10, bridge=30, direct=3))
    assert [f.tier for f in facts] == [FactTier.KEY, FactTier.BRIDGE] + [FactTier.DIRECT] * 3
    assert [(f.subject, f.object) for f in facts[:2]] == [("A", "B"), ("M", "B")]


def test_direct_facts_rank_first_hop_and_named_outlets_first() -> None:
    out = TemplateOutput(
        direct=[
            _raw("A", "R", "far", ["x"], hops=2, named=3),
            _raw("A", "R", "plain", ["y"]),
            _raw("A", "R", "named", ["z"], named=1),
        ]
    )
    facts = select_facts(out, "question", FactCaps())
    assert [f.object for f in facts] == ["named", "plain", "far"]


def test_chain_facts_follow_the_direct_ones_under_their_own_cap() -> None:
    out = TemplateOutput(
        direct=[_raw("A", "OWNS", "B", ["d1"])],
        chain=[_raw("B", "CEO_OF", f"P{i}", [f"c{i}"], hops=3) for i in range(4)] + [_raw("A", "OWNS", "B", ["d1"])],
    )
    facts = select_facts(out, "who runs the owner of A", FactCaps(direct=5, chain=2))
    assert [(f.subject, f.relationship, f.object) for f in facts] == [
        ("A", "OWNS", "B"),
        ("B", "CEO_OF", "P0"),
        ("B", "CEO_OF", "P1"),
    ]
    assert all(f.tier is FactTier.DIRECT for f in facts)


def _chunk(cid: str, **kw: object) -> CandidateChunk:
    return CandidateChunk.model_validate(
        {"chunk_id": cid, "document_id": cid, "title": cid, "text": f"text {cid}"} | kw
    )


def test_rank_chunks_orders_key_then_bridge_then_direct_then_candidates() -> None:
    out = TemplateOutput(
        key=[_raw("A", "R", "B", ["k"])],
        bridge=[[_raw("A", "R", "M", ["b"]), _raw("M", "R", "B", ["b"])]],
        direct=[_raw("A", "R", "X", ["d"])],
    )
    facts = select_facts(out, "q", FactCaps())
    fact_chunks = {cid: _chunk(cid) for cid in ("k", "b", "d")}
    candidates = [_chunk("m1", entities=1), _chunk("m2", entities=2), _chunk("k", entities=2)]
    ranked = [c.chunk_id for c, _ in rank_chunks(facts, fact_chunks, candidates, "q")]
    assert ranked == ["k", "b", "d", "m2", "m1"]


def test_excerpt_is_bounded_and_centred_on_evidence() -> None:
    text = (
        "[Source: X | Title: T | Published: 2024-01-01] "
        + "filler sentence. " * 100
        + "The key fact. "
        + "tail. " * 100
    )
    cut = excerpt(text, "The key fact.", 200)
    assert "The key fact." in cut and len(cut) <= 202 and not cut.startswith("[Source")


def test_one_word_partial_matches_skip_words_common_in_node_names() -> None:
    from graphwire.retrieval.graph.matching import TieredMatcher
    from graphwire.retrieval.graph.models import Mention

    rows = [{"key": f"Organization:{n.lower()}", "name": n, "label": "Organization", "aliases": []} for n in
            ("Epoch Times", "Financial Times", "Times Group", "Times Square Partners", "Lumen Labs")]  # fmt: skip
    index = build_index(rows, [], (5, 0), load_schema())
    matcher = TieredMatcher(MatchPolicy(max_partial_df=3))
    assert matcher._specific(Mention(text="Lumen", origin=MentionOrigin.SPAN), index)
    assert not matcher._specific(Mention(text="Times", origin=MentionOrigin.SPAN), index)  # in 4 names
    assert matcher._specific(Mention(text="Epoch Times", origin=MentionOrigin.SPAN), index)  # two words: specific
    assert matcher.match_mention(Mention(text="Times", origin=MentionOrigin.SPAN), index) == []  # no read needed


def test_numbers_alone_are_not_entity_spans() -> None:
    analysis = analyse_question("Did Kestral Motors recall 12,000 cars or 15000 in Norway?", _index())
    assert [m.text for m in analysis.mentions] == ["Kestral Motors", "Norway"]
