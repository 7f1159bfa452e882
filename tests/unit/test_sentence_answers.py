"""Answers from retrieved sentences when the graph's facts compose none (retrieval/answer/evidence.py), on
hand-built retrieval results: an entity, a before/after judgement, a quote, and abstention by evidence."""

from __future__ import annotations

from datetime import date

from graphwire.retrieval.answer.extractive import ExtractiveAnswerer
from graphwire.retrieval.models import ABSTENTION, AnswerKind, QuestionSummary, RankedChunk, RetrievalResult
from graphwire.retrieval.question import PublicationMention
from graphwire.schema.model import load_schema

ANSWERER = ExtractiveAnswerer(schema=load_schema())


def _chunk(cid: str, source: str, day: date, text: str) -> RankedChunk:
    prefix = f"[Source: {source} | Title: t | Published: {day.isoformat()}]\n"
    return RankedChunk(chunk_id=cid, document_id=cid, title=f"t {cid}", source=source, published_at=day,
                       text=prefix + text)  # fmt: skip


def _outlet(name: str, clause: str) -> PublicationMention:
    return PublicationMention(mention=name, start=0, end=len(name), name=name, sources=[name], clause=clause)


DRONES = [
    _chunk("a1", "Alpha Wire", date(2023, 3, 1),
           "Greta Holm founded Skyvolt, a startup that builds solar drones for farms. The weather was mild."),
    _chunk("b1", "Beta Post", date(2023, 5, 9),
           "Skyvolt's solar drones, designed by founder Greta Holm, now survey farms in Norway. Investors cheered."),
    _chunk("b2", "Beta Post", date(2023, 5, 10), "Separately, Ivo Brandt opened a bakery in a quiet Oslo street."),
]  # fmt: skip


def _result(question_outlets: list[PublicationMention], order: str | None = None) -> RetrievalResult:
    analysis = QuestionSummary(yes_no=False, order=order, outlets=question_outlets)  # type: ignore[arg-type]
    return RetrievalResult(mode="joint", chunks=DRONES, analysis=analysis)


def test_the_one_entity_of_the_asked_type_both_outlets_name_is_the_answer() -> None:
    question = "Who founded the startup building solar drones for farms, as reported by Alpha Wire and Beta Post?"
    outlets = [_outlet("Alpha Wire", question), _outlet("Beta Post", question)]
    answer = ANSWERER.answer(question, _result(outlets))
    assert (answer.text, answer.answer_kind) == ("Greta Holm", AnswerKind.ENTITY)
    assert {c.chunk_id for c in answer.citations} == {"a1", "b1"}


def test_before_after_is_judged_from_a_supporting_sentence_and_its_date_on_each_side() -> None:
    question = (
        "Did Alpha Wire report that Greta Holm founded Skyvolt before Beta Post reported that Skyvolt drones survey "
        "farms in Norway?"
    )
    outlets = [
        _outlet("Alpha Wire", "Alpha Wire report that Greta Holm founded Skyvolt"),
        _outlet("Beta Post", "Beta Post reported that Skyvolt drones survey farms in Norway"),
    ]
    before = ANSWERER.answer(question, _result(outlets, order="before"))
    assert (before.text, before.answer_kind) == ("Yes", AnswerKind.JUDGEMENT)
    assert [c.chunk_id for c in before.citations] == ["a1", "b1"]
    after = ANSWERER.answer(question.replace("before", "after"), _result(outlets, order="after"))
    assert after.text == "No"


def test_a_question_without_an_entity_answer_gets_the_sentences_that_speak_to_it_quoted() -> None:
    question = "Why do farms in Norway use Skyvolt solar drones?"
    answer = ANSWERER.answer(question, _result([]))
    assert answer.answer_kind is AnswerKind.QUOTE
    assert answer.text.startswith('"Skyvolt') and "survey farms in Norway" in answer.text
    assert answer.citations[0].chunk_id == "b1"


def test_abstains_when_the_passages_never_name_what_the_question_names() -> None:
    for question in (
        "Why do farms in Denmark use Skyvolt solar drones?",  # Denmark: named by no passage
        "How much did Greta Holm pay for Skyvolt solar drones?",  # an amount: no sentence has one
    ):
        answer = ANSWERER.answer(question, _result([]))
        assert (answer.text, answer.answer_kind) == (ABSTENTION, AnswerKind.ABSTENTION), question


def test_one_outlet_named_twice_gives_two_sides_that_must_be_two_articles() -> None:
    question = (
        "Did the Beta Post article say Skyvolt drones survey farms in Norway, and did the Beta Post report say Ivo "
        "Brandt opened a bakery in a quiet Oslo street?"
    )
    start = question.index("Beta Post")
    outlet = PublicationMention(mention="Beta Post", start=start, end=start + 9, name="Beta Post",
                                sources=["Beta Post"], clause=question)  # fmt: skip
    answer = ANSWERER.answer(question, _result([outlet]))
    assert (answer.text, answer.answer_kind) == ("Yes", AnswerKind.JUDGEMENT)
    assert [c.chunk_id for c in answer.citations] == ["b1", "b2"]
    one_article = question.replace("Ivo Brandt opened a bakery in a quiet Oslo street", "investors cheered Skyvolt")
    quoted = ANSWERER.answer(one_article, _result([outlet]))  # both sides rest on b1: no judgement, b1 quoted
    assert quoted.answer_kind is AnswerKind.QUOTE and "survey farms in Norway" in quoted.text
    assert [c.chunk_id for c in quoted.citations] == ["b1"]


def test_whether_reports_agree_is_not_judged_but_each_side_is_quoted() -> None:
    question = (
        "Do the Alpha Wire report that Greta Holm founded Skyvolt to build solar drones for farms and the Beta Post "
        "report that Skyvolt's solar drones survey farms in Norway agree?"
    )
    outlets = [
        _outlet("Alpha Wire", "Alpha Wire report that Greta Holm founded Skyvolt to build solar drones for farms"),
        _outlet("Beta Post", "Beta Post report that Skyvolt's solar drones survey farms in Norway"),
    ]
    answer = ANSWERER.answer(question, _result(outlets))
    assert answer.answer_kind is AnswerKind.QUOTE  # never a yes or no: overlap cannot tell agreement
    assert answer.text.startswith('"Greta Holm founded Skyvolt') and "survey farms in Norway" in answer.text
    assert [c.chunk_id for c in answer.citations] == ["a1", "b1"]


def test_an_entity_question_without_one_entity_gets_the_sentences_that_speak_to_it_quoted() -> None:
    tied = [
        _chunk("c1", "Alpha Wire", date(2023, 3, 1), "Greta Holm founded Skyvolt, the maker of solar drones."),
        _chunk("c2", "Beta Post", date(2023, 3, 2), "Ivo Brandt founded Skyvolt, a maker of solar drones for farms."),
    ]
    question = "Who founded Skyvolt, the maker of solar drones?"
    result = RetrievalResult(mode="joint", chunks=tied, analysis=QuestionSummary())
    answer = ANSWERER.answer(question, result)
    assert answer.answer_kind is AnswerKind.QUOTE  # two founders, each named once: no one entity
    assert (
        "Greta Holm" in answer.text
        and "Ivo Brandt" in answer.text
        and {c.chunk_id for c in answer.citations} == {"c1", "c2"}
    )


def test_a_sentence_cut_by_the_chunk_boundary_is_never_quoted() -> None:
    cut = _chunk("c1", "Beta Post", date(2023, 5, 9),
                 "farms in Norway use Skyvolt solar drones because they are cheap. Greta Holm says farms in Norway "
                 "like Skyvolt solar drones. Skyvolt solar drones also survey farms in Norway and")  # fmt: skip
    result = RetrievalResult(mode="joint", chunks=[cut], analysis=QuestionSummary())
    answer = ANSWERER.answer("Why do farms in Norway use Skyvolt solar drones?", result)
    assert answer.answer_kind is AnswerKind.QUOTE
    assert answer.text == '"Greta Holm says farms in Norway like Skyvolt solar drones."'  # not the cut first or last
    assert [c.quote for c in answer.citations] == ["Greta Holm says farms in Norway like Skyvolt solar drones."]
