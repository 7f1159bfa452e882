"""REPORTED_BY (`provenance: inferred` in the schema) keeps the PROVENANCE_CAP smallest ids of the chunks that support
it, whatever order the documents come in, and after a delete or an update it holds what a clean ingest of the
remaining documents holds.

The corpus is written here: seven Harbor Times briefs that all mention Ada Park and Lumen Labs (more than the cap of
3), and Northgate Daily briefs that mention Ada Park and name Harbor Times in passing. The tagger (a stub that finds
the people and companies by name, never outlets) does not give those briefs Harbor Times; the dictionary linker does
(`linked` MENTIONS), and they do not support Ada Park's REPORTED_BY Harbor Times, so a refill must not take them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from datetime import date
from typing import Any

import pytest
from support import crash
from support.schemas import news_caps

from graphwire.core.clients.graph import Graph
from graphwire.core.documents import Article, Chunk
from graphwire.core.settings import get_settings
from graphwire.ingest.chunker import chunk_article
from graphwire.ingest.consistency import check_store, repair_store
from graphwire.ingest.extractors.base import ExtractionFailure
from graphwire.ingest.extractors.offline import extraction_text
from graphwire.ingest.models import ExtractedEntity, ExtractedRelation, Extraction
from graphwire.ingest.pipeline import IngestOptions, delete_documents, ingest_articles
from graphwire.ingest.resolve import EntityResolver
from graphwire.schema.model import load_schema

pytestmark = pytest.mark.integration
CAP = 3
ADA, LUMEN = "Person:ada park", "Organization:lumen labs"
HARBOR, NORTHGATE = "Publication:harbor times", "Publication:northgate daily"
NAMES = (("Ada Park", "Person"), ("Lumen Labs", "Organization"))
CEO = "Ada Park leads Lumen Labs."
STATED = "Harbor Times reported the review first."
Facts = dict[tuple[str, str, str], tuple[list[str], list[str] | None]]


class NameExtractor:
    """Tags NAMES wherever a chunk has them; CEO_OF where its sentence is; REPORTED_BY Harbor Times, with a sentence,
    for the chunks in `stated` (as an LLM that read the attribution would)."""

    name = "names"
    version = "1"

    def __init__(self, stated: Collection[str], outlets: bool = False) -> None:
        self.stated = stated
        self.names = (*NAMES, ("Harbor Times", "Publication")) if outlets else NAMES  # as the offline tagger does

    def extract(self, chunks: Sequence[Chunk]) -> list[Extraction | ExtractionFailure]:
        return [self._one(chunk) for chunk in chunks]

    def _one(self, chunk: Chunk) -> Extraction:
        text = extraction_text(chunk)
        relations = []
        if CEO in text:
            relations.append(_from_ada("CEO_OF", "Lumen Labs", "Organization", CEO))
        if chunk.id in self.stated:
            relations.append(_from_ada("REPORTED_BY", "Harbor Times", "Publication", STATED))
        entities = [ExtractedEntity(name=name, label=label) for name, label in self.names if name in text]
        return Extraction(chunk_id=chunk.id, entities=entities, relations=relations, extractor=self.name)


def _from_ada(rel_type: str, target: str, target_label: str, evidence: str) -> ExtractedRelation:
    return ExtractedRelation(source="Ada Park", source_label="Person", type=rel_type, target=target,
                             target_label=target_label, evidence=evidence)  # fmt: skip


def harbor(n: int, body: str | None = None) -> Article:
    body = body or f"Ada Park opened port review {n}. {CEO}"
    return Article(title=f"Harbor brief {n}", body=body, source="Harbor Times", published_at=date(2025, 5, 1 + n),
                   url=f"https://harbor.test/{n}")  # fmt: skip


def northgate(n: int) -> Article:
    body = f"Ada Park toured depot {n}, a visit Harbor Times covered too."
    return Article(title=f"Northgate brief {n}", body=body, source="Northgate Daily", published_at=date(2025, 6, 1),
                   url=f"https://northgate.test/{n}")  # fmt: skip


def first_id(article: Article) -> str:
    return chunk_article(article)[0].id


HARBOR_DOCS = sorted((harbor(n) for n in range(7)), key=first_id)  # by chunk id: HARBOR_DOCS[i] has HARBOR_IDS[i]
HARBOR_IDS = [first_id(a) for a in HARBOR_DOCS]
# the two with the smallest chunk ids of 20 candidates: small enough that a refill counting them would keep them
NORTHGATE_DOCS = sorted((northgate(n) for n in range(20)), key=first_id)[:2]
CORPUS = sorted(HARBOR_DOCS + NORTHGATE_DOCS, key=lambda a: a.url or "")


@pytest.fixture(autouse=True)
def small_cap(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PROVENANCE_CAP", str(CAP))
    monkeypatch.delenv("SCHEMA_PATH", raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def ingest(
    graph: Graph, articles: Sequence[Article], stated: Collection[str], batch_documents: int = 2, outlets: bool = False
) -> None:
    report = ingest_articles(
        articles,
        graph,
        NameExtractor(stated, outlets),
        options=IngestOptions(
            progress=False, batch_documents=batch_documents, provenance_cap=get_settings().provenance_cap
        ),
        resolver=EntityResolver(schema=load_schema()),
        schema=load_schema(),
    )
    assert not report.failures


def facts(graph: Graph) -> Facts:
    return {(r["source"], r["type"], r["target"]): (r["chunk_ids"], r["evidence"])
            for r in graph.read("ingest/export_facts")}  # fmt: skip


def reported_by(graph: Graph) -> Facts:
    """The REPORTED_BY provenance lists, in their stored order."""
    return {key: value for key, value in facts(graph).items() if key[1] == "REPORTED_BY"}


def store(graph: Graph) -> dict[str, Any]:
    return {"graph": crash.export_graph(graph), "reported_by": reported_by(graph)}


def clean_ingest(
    graph: Graph, articles: Sequence[Article], stated: Collection[str], outlets: bool = False
) -> dict[str, Any]:
    graph.write("admin/wipe")
    ingest(graph, articles, stated, outlets=outlets)
    return store(graph)


def test_a_hub_keeps_the_cap_smallest_implied_chunk_ids_and_every_stated_one(graph: Graph) -> None:
    ingest(graph, CORPUS, stated={HARBOR_IDS[1], HARBOR_IDS[-1]})  # five batches: one CREATE, then MERGEs
    written = facts(graph)
    kept = [*HARBOR_IDS[: CAP + 1], HARBOR_IDS[-1]]  # the 3 smallest implied ones, and the two stated ones
    assert written[(ADA, "REPORTED_BY", HARBOR)] == (kept, ["", STATED, "", "", STATED])
    assert written[(LUMEN, "REPORTED_BY", HARBOR)] == (HARBOR_IDS[:CAP], None)  # no sentence states it
    assert written[(ADA, "REPORTED_BY", NORTHGATE)] == (sorted(map(first_id, NORTHGATE_DOCS)), None)
    ceo_ids, ceo_evidence = written[(ADA, "CEO_OF", LUMEN)]  # not an inferred type: every supporting chunk
    assert sorted(ceo_ids) == HARBOR_IDS and ceo_evidence == [CEO] * len(HARBOR_IDS)


def test_the_kept_ids_do_not_depend_on_the_order_documents_come_in(graph: Graph) -> None:
    stated = {HARBOR_IDS[4]}  # beyond the cap of implied ones, and kept: a sentence states it
    expected = clean_ingest(graph, CORPUS, stated)
    kept = [*HARBOR_IDS[:CAP], HARBOR_IDS[4]]
    assert expected["reported_by"][(ADA, "REPORTED_BY", HARBOR)] == (kept, ["", "", "", STATED])
    assert expected["reported_by"][(LUMEN, "REPORTED_BY", HARBOR)] == (HARBOR_IDS[:CAP], None)
    largest_first = sorted(CORPUS, key=first_id, reverse=True)  # every batch brings smaller ids than the stored ones
    assert clean_ingest(graph, largest_first, stated) == expected
    graph.write("admin/wipe")
    ingest(graph, largest_first[:5], stated, batch_documents=3)
    ingest(graph, largest_first[5:], stated, batch_documents=3)  # a second run MERGEs into what the first wrote
    assert store(graph) == expected


def test_a_delete_of_a_kept_chunk_refills_to_a_clean_ingest_of_the_rest(graph: Graph) -> None:
    stated = {HARBOR_IDS[0]}  # the only sentence goes with the deleted chunk
    ingest(graph, CORPUS, stated)
    assert first_id(NORTHGATE_DOCS[0]) < HARBOR_IDS[CAP]  # a refill that counted the linked mention would keep it
    assert _linked_to_harbor(graph) >= {first_id(a) for a in NORTHGATE_DOCS}
    delete_documents(graph, [HARBOR_DOCS[0].doc_id], provenance=news_caps())
    after = store(graph)
    assert after["reported_by"][(ADA, "REPORTED_BY", HARBOR)] == (HARBOR_IDS[1 : CAP + 1], None)
    assert after == clean_ingest(graph, [a for a in CORPUS if a is not HARBOR_DOCS[0]], stated)


def test_an_update_of_a_kept_chunk_refills_to_a_clean_ingest_of_the_new_corpus(graph: Graph) -> None:
    stated = {HARBOR_IDS[0], HARBOR_IDS[1]}
    ingest(graph, CORPUS, stated)
    changed = harbor(int(HARBOR_DOCS[1].title.split()[-1]), body="The port review was postponed.")  # no names left
    updated = [changed if a.url == changed.url else a for a in CORPUS]
    ingest(graph, updated, stated)
    after = store(graph)
    kept = [HARBOR_IDS[0], *HARBOR_IDS[2 : CAP + 2]]  # the stated one, and the 3 smallest implied ones left
    assert after["reported_by"][(ADA, "REPORTED_BY", HARBOR)] == (kept, [STATED, "", "", ""])
    assert after["reported_by"][(LUMEN, "REPORTED_BY", HARBOR)] == (kept[:CAP], None)
    assert after == clean_ingest(graph, updated, stated)


def test_chunks_of_other_outlets_that_name_the_outlet_are_not_refilled_and_stated_ones_stay(graph: Graph) -> None:
    """Northgate briefs name Harbor Times and the tagger tags it there: they mention both ends without implying the
    REPORTED_BY (their document is Northgate's), so a refill must not take them; one of them states it and stays."""
    northgate_stated = first_id(NORTHGATE_DOCS[1])
    stated = {HARBOR_IDS[0], northgate_stated}
    ingest(graph, CORPUS, stated, outlets=True)
    before = reported_by(graph)[(ADA, "REPORTED_BY", HARBOR)]
    assert before[0] == sorted([*HARBOR_IDS[: CAP + 1], northgate_stated])  # 2 stated, the 3 smallest implied
    delete_documents(graph, [HARBOR_DOCS[1].doc_id], provenance=news_caps())  # an implied entry of a full list
    after = store(graph)
    kept = sorted([HARBOR_IDS[0], *HARBOR_IDS[2 : CAP + 2], northgate_stated])
    assert after["reported_by"][(ADA, "REPORTED_BY", HARBOR)][0] == kept
    assert first_id(NORTHGATE_DOCS[0]) < HARBOR_IDS[CAP]  # a refill taking chunks that name both ends would keep it
    assert after == clean_ingest(graph, [a for a in CORPUS if a is not HARBOR_DOCS[1]], stated, outlets=True)


def _linked_to_harbor(graph: Graph) -> set[str]:
    rows = graph.read("check/entity_mentions")
    return {r["chunk_id"] for r in rows if r["key"] == HARBOR and r["linked"]}


def test_repair_refills_a_full_list_that_lost_a_chunk_behind_the_pipeline(graph: Graph) -> None:
    """A kept chunk deleted without the pipeline (`db check` finds its id in the lists): `--repair` takes it out and
    refills each full list from the chunks that still imply it, to what a clean ingest of the rest holds."""
    stated = {HARBOR_IDS[1]}
    ingest(graph, CORPUS, stated)
    graph.write("check/delete_document_chunks_raw", document_id=HARBOR_DOCS[0].doc_id)
    found = check_store(graph, None, news_caps())
    assert f"{ADA} -REPORTED_BY-> {HARBOR}" in found.unsupported_relationships
    repair_store(graph, None, found, news_caps(), load_schema().roles)
    after = reported_by(graph)
    assert after[(ADA, "REPORTED_BY", HARBOR)] == (HARBOR_IDS[1 : CAP + 2], [STATED, "", "", ""])
    assert after[(LUMEN, "REPORTED_BY", HARBOR)] == (HARBOR_IDS[1 : CAP + 1], None)
    assert check_store(graph, None, news_caps()).unsupported_relationships == []
    assert after == clean_ingest(graph, [a for a in CORPUS if a is not HARBOR_DOCS[0]], stated)["reported_by"]


def test_lists_written_under_a_larger_cap_are_reported_and_cut_to_the_cap(
    graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store a graphwire before the cap wrote (or one under a larger PROVENANCE_CAP): `db check` reports its long
    lists, `--repair` cuts them to what a clean ingest under the cap writes."""
    stated = {HARBOR_IDS[5]}
    expected = clean_ingest(graph, CORPUS, stated)["reported_by"]
    graph.write("admin/wipe")
    monkeypatch.setenv("PROVENANCE_CAP", "100")
    get_settings.cache_clear()
    ingest(graph, CORPUS, stated)
    assert reported_by(graph)[(ADA, "REPORTED_BY", HARBOR)][0] == HARBOR_IDS  # uncut: all seven
    monkeypatch.setenv("PROVENANCE_CAP", str(CAP))
    get_settings.cache_clear()
    found = check_store(graph, None, news_caps())
    assert found.overfull_provenance == [f"{LUMEN} -REPORTED_BY-> {HARBOR}", f"{ADA} -REPORTED_BY-> {HARBOR}"]
    assert repair_store(graph, None, found, news_caps(), load_schema().roles).provenance_lists_trimmed == 2
    assert reported_by(graph) == expected
    assert expected[(ADA, "REPORTED_BY", HARBOR)] == ([*HARBOR_IDS[:CAP], HARBOR_IDS[5]], ["", "", "", STATED])
    assert check_store(graph, None, news_caps()).problems() == {}
