"""Entity answers from the graph's mentions of the retrieved chunks (retrieval/answer/subjects.py and the first
rule of `SentenceAnswers._subject`): the entity of the asked label that the most documents mention, where the
sentences' own named-entity tags see only a surname or an acronym."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from graphwire.retrieval.answer.extractive import ExtractiveAnswerer
from graphwire.retrieval.answer.subjects import Mentioned
from graphwire.retrieval.models import ABSTENTION, AnswerKind, QuestionSummary, RankedChunk, RetrievalResult
from graphwire.retrieval.question import PublicationMention
from graphwire.schema.model import load_schema

SCHEMA = load_schema()
QUESTION = "Who is the founder accused of fraud over a solar drone startup, as reported by Alpha Wire and Beta Post?"


class Layer:
    """A fixed entity layer: chunk id -> the entities the graph says it mentions."""

    def __init__(self, mentions: dict[str, list[Mentioned]]) -> None:
        self.mentions = mentions

    def of(self, chunk_ids: Sequence[str]) -> list[list[Mentioned]]:
        return [self.mentions.get(chunk_id, []) for chunk_id in chunk_ids]


def _chunk(cid: str, document: str, source: str, text: str) -> RankedChunk:
    prefix = f"[Source: {source} | Title: t | Published: 2023-05-01]\n"
    return RankedChunk(chunk_id=cid, document_id=document, title=f"t {document}", source=source,
                       published_at=date(2023, 5, 1), text=prefix + text)  # fmt: skip


CHUNKS = [
    _chunk("a1", "A", "Alpha Wire", "Prosecutors say Holm misled investors in the solar drone startup for years."),
    _chunk("b1", "B", "Beta Post", "The fraud trial of the drone founder opened on Monday; Ivo Brandt testified."),
    _chunk("b2", "B", "Beta Post", "Brandt, a former engineer, told jurors the startup's numbers were invented."),
    _chunk("c1", "C", "Alpha Wire", "Analysts expect the case to weigh on drone makers. Ivo Brandt declined comment."),
]  # fmt: skip
HOLM = Mentioned("Greta Holm", "Person", 3)
SURNAME = Mentioned("Holm", "Person", 1)
BRANDT = Mentioned("Ivo Brandt", "Person", 1)


def _result(question: str) -> RetrievalResult:
    outlets = [
        PublicationMention(mention=n, start=0, end=len(n), name=n, sources=[n], clause=question)
        for n in ("Alpha Wire", "Beta Post")
        if n in question
    ]
    return RetrievalResult(mode="joint", chunks=CHUNKS, analysis=QuestionSummary(outlets=outlets))


def _answer(mentions: dict[str, list[Mentioned]], question: str = QUESTION) -> tuple[str, AnswerKind, list[str]]:
    answer = ExtractiveAnswerer(schema=SCHEMA, entities=Layer(mentions)).answer(question, _result(question))
    return answer.text, answer.answer_kind, [c.chunk_id for c in answer.citations]


def test_the_entity_the_most_documents_mention_is_the_answer_cited_by_its_chunks() -> None:
    # the sentences say "Holm" and "the drone founder"; the graph resolved both to Greta Holm
    mentions = {"a1": [SURNAME], "b1": [HOLM, BRANDT], "b2": [BRANDT], "c1": [BRANDT, HOLM]}
    assert _answer(mentions) == ("Greta Holm", AnswerKind.ENTITY, ["a1", "b1", "c1"])


def test_a_surname_node_counts_for_the_one_full_name_it_ends() -> None:
    # without the merge Greta Holm is in one document (A) and Ivo Brandt, in two (B, C), would be the answer
    mentions = {"a1": [HOLM], "b1": [BRANDT], "b2": [BRANDT], "c1": [SURNAME, BRANDT]}
    question = QUESTION.replace("Alpha Wire and Beta Post", "Alpha Wire")
    text, kind, cited = _answer(mentions, question)
    assert (text, kind) == ("Greta Holm", AnswerKind.ENTITY) and cited == ["a1", "c1"]


def test_a_question_naming_no_outlet_asks_a_relation_the_facts_answer() -> None:
    # "who is the founder of ...": the entity most mentioned around it is not its founder
    mentions = {"a1": [HOLM], "b1": [HOLM, BRANDT], "b2": [BRANDT], "c1": [BRANDT, HOLM]}
    question = "Who is the founder accused of fraud over a solar drone startup?"
    assert _answer(mentions, question)[0] == ABSTENTION


def test_no_answer_from_one_document_from_one_outlet_or_from_a_tie() -> None:
    # one document: Holm in two chunks of B only
    assert _answer({"b1": [HOLM], "b2": [HOLM]})[0] == ABSTENTION
    # two documents, but both Alpha Wire's where the question names two outlets
    assert _answer({"a1": [HOLM], "c1": [HOLM]})[0] == ABSTENTION
    # two entities in exactly the same chunks, as often: no answer
    twin = Mentioned("Ada Lind", "Person", 3)
    assert _answer({"a1": [HOLM, twin], "b1": [HOLM, twin]})[0] == ABSTENTION


def test_an_entity_the_question_names_or_of_another_label_is_not_the_answer() -> None:
    drones = Mentioned("Skyvolt", "Organization", 4)
    named = "Who is the founder of Skyvolt accused of fraud, as reported by Alpha Wire and Beta Post?"
    assert _answer({"a1": [drones], "b1": [drones]})[0] == ABSTENTION  # asks a person; Skyvolt is an organisation
    company = named.replace("Who is the founder of Skyvolt", "Which company is the drone startup")
    assert _answer({"a1": [drones], "b1": [drones]}, company)[0] == "Skyvolt"
    assert _answer({"a1": [drones], "b1": [drones]}, named.replace("Who", "Which company"))[0] == ABSTENTION


def test_an_answerer_is_built_and_answers_flat_results_without_reaching_the_graph() -> None:
    from graphwire.core.settings import Settings
    from graphwire.retrieval.registry import RetrievalContext

    reached: list[str] = []

    def unreachable() -> Any:  # as the API's graph provider while Neo4j is down or not configured
        reached.append("graph")
        raise RuntimeError("Neo4j is not configured")

    context = RetrievalContext(Settings(), graph=unreachable)
    answerer = context.answerer("extractive")
    flat = RetrievalResult(mode="vector", chunks=CHUNKS)  # a flat mode reads no outlet from the question
    assert answerer.answer(QUESTION, flat).text == ABSTENTION
    assert reached == []
