"""Answer checking (retrieval/answer/checking.py) on short original texts, and its one door: the context's answerers
(retrieval/answer/checked.py) check every answer, blocking, awaited and streamed, and can drop what is unsupported."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest
from support.openai_stub import OpenAIStub, text

from graphwire.core.settings import Settings
from graphwire.retrieval.answer.check_vocabulary import RelationVocabulary
from graphwire.retrieval.answer.checked import CheckedAnswerer
from graphwire.retrieval.answer.checking import answer_sentences, check_answer
from graphwire.retrieval.models import (
    ABSTENTION,
    Answer,
    AnswerStatus,
    Citation,
    Fact,
    FactTier,
    RankedChunk,
    RetrievalResult,
)
from graphwire.retrieval.registry import RetrievalContext
from graphwire.schema.model import load_schema

# written for these tests
MILL = (
    "Tarnby Mills named Odile Ferrant its chief executive on Tuesday. Ferrant previously ran the group's paper plant "
    "in Ghent. The mill paid $18 million for the Wexcombe site in 2019."
)
RIVAL = "Corrow Paper opened a pulp line in Antwerp. Its founder, Lionel Mabry, said the line cost $7 million."
QUESTION = "Who is the chief executive of Tarnby Mills?"


def _result() -> RetrievalResult:
    mill = RankedChunk(chunk_id="mill", document_id="d1", title="Tarnby Mills picks a chief", source="Scarp Gazette",
                       published_at=date(2025, 4, 8), text=MILL, score=2.0)  # fmt: skip
    rival = RankedChunk(chunk_id="rival", document_id="d2", title="Corrow Paper expands", source="Scarp Gazette",
                        published_at=date(2025, 5, 1), text=RIVAL, score=1.0)  # fmt: skip
    fact = Fact(tier=FactTier.KEY, subject="Odile Ferrant", subject_label="Person", relationship="CEO_OF",
                object="Tarnby Mills", object_label="Organization", chunk_ids=["mill"],
                evidence=["Tarnby Mills named Odile Ferrant its chief executive on Tuesday."])  # fmt: skip
    return RetrievalResult(mode="graph", chunks=[mill, rival], facts=[fact])


def _check(answer_text: str, cited: tuple[str, ...] = ("mill",), question: str = QUESTION) -> list[tuple[bool, str]]:
    citations = [Citation(chunk_id=c, title=c) for c in cited]
    check = check_answer(question, Answer(text=answer_text, answerer="test", citations=citations), _result())
    assert check.unsupported == sum(not s.supported for s in check.sentences)
    return [(s.supported, " ".join(s.missing)) for s in check.sentences]


def test_a_sentence_copied_from_the_evidence_is_supported_by_its_sentence() -> None:
    check = check_answer(QUESTION, Answer(text="Tarnby Mills named Odile Ferrant its chief executive [1].",
                                          answerer="test"), _result())  # fmt: skip
    [sentence] = check.sentences
    assert sentence.supported and sentence.score == 1.0 and check.score == 1.0 and check.unsupported == 0
    assert sentence.chunk_ids == ["mill"]
    assert sentence.evidence == ["Tarnby Mills named Odile Ferrant its chief executive on Tuesday."]


def test_a_paraphrase_and_a_claim_joining_two_sentences_are_supported() -> None:
    assert _check("Odile Ferrant was appointed chief executive of Tarnby Mills.") == [(True, "")]
    assert _check("The CEO of Tarnby Mills is Odile Ferrant.") == [(True, "")]  # the fact's CEO_OF
    assert _check("Odile Ferrant, who ran the paper plant in Ghent, leads Tarnby Mills.") == [(True, "")]


def test_one_other_word_passes_and_the_schemas_words_for_a_relationship_support_its_fact() -> None:
    assert _check("Odile Ferrant heads Tarnby Mills.") == [(True, "")]  # one word the evidence lacks
    claim = "Tarnby Mills is led by its boss, Odile Ferrant."
    assert _check(claim) == [(False, "")]
    vocabulary = RelationVocabulary.of(load_schema())  # CEO_OF: "ceo, chief executive, boss, runs, ... led by"
    check = check_answer(QUESTION, Answer(text=claim, answerer="test"), _result(), vocabulary)
    assert check.sentences[0].supported  # "led by" and "boss" are CEO_OF's, as is the evidence's "chief executive"
    # one relationship's words stand for each other: the chunk's "chief executive" supports the answer's "CEO"
    ceo = "Tarnby Mills CEO Odile Ferrant previously ran the group's paper plant."
    result = _result().model_copy(update={"facts": []})
    assert check_answer(QUESTION, Answer(text=ceo, answerer="test"), result, vocabulary).sentences[0].supported


def test_a_wrong_number_is_unsupported() -> None:
    assert _check("The mill paid $18 million for the Wexcombe site.") == [(True, "")]
    assert _check("The mill paid $81 million for the Wexcombe site.") == [(False, "81")]
    assert _check("The mill paid 18,000,000 dollars for the Wexcombe site.") == [(False, "18000000")]


def test_a_wrong_date_is_unsupported() -> None:
    assert _check("Tarnby Mills bought the Wexcombe site in 2019.") == [(True, "")]
    assert _check("Tarnby Mills bought the Wexcombe site in 2021.") == [(False, "2021")]
    assert _check("Ferrant was named chief executive on Tuesday, April 8, 2025.") == [(True, "")]  # the article date
    assert _check("Ferrant was named chief executive on Friday.") == [(False, "Friday")]
    assert _check("Ferrant was named chief executive in March 2025.") == [(False, "March")]


def test_an_invented_entity_or_relation_is_unsupported() -> None:
    assert _check("Odile Ferrant previously ran Halvard Pulp.") == [(False, "Halvard")]  # "pulp" is a word of RIVAL
    assert _check("Tarnby Mills acquired Corrow Paper in a hostile bid.") == [(False, "")]  # names known, claim not


def test_the_planted_sentence_of_an_answer_is_the_one_flagged() -> None:
    answer = ("Odile Ferrant is the chief executive of Tarnby Mills [1]. She also chairs the Ghent Chamber of "
              "Commerce [1].")  # fmt: skip
    assert answer_sentences("Yes [1]. Dr. Ferrant said so.") == ["Yes [1].", "Dr. Ferrant said so."]
    assert [s for s in answer_sentences(answer)] == [
        "Odile Ferrant is the chief executive of Tarnby Mills [1].",
        "She also chairs the Ghent Chamber of Commerce [1].",
    ]
    assert _check(answer) == [(True, ""), (False, "Chamber Commerce")]


def test_the_abstention_claims_nothing_and_short_answers_are_checked_against_the_cited_evidence() -> None:
    abstention = check_answer(QUESTION, Answer(text=ABSTENTION, answerer="test"), _result())
    assert (abstention.sentences, abstention.score, abstention.unsupported) == ([], 1.0, 0)
    assert _check("Odile Ferrant [1].") == [(True, "")]
    assert _check("Lionel Mabry [1].") == [(False, "Lionel Mabry")]  # retrieved, but not in the cited chunk
    assert _check("Lionel Mabry.", cited=()) == [(True, "")]  # no citations: any retrieved sentence
    assert _check("Yes.", question="Did Tarnby Mills name Odile Ferrant chief executive?") == [(True, "")]
    assert _check("Yes.", question="Did Tarnby Mills name Odile Ferrant to the Halvard board?") == [(False, "Halvard")]


def _checked_settings(llm_settings: Settings, drop: bool) -> Settings:
    return llm_settings.model_copy(update={"answer_drop_unsupported": drop, "llm_max_retries": 0})


def test_the_contexts_answerers_check_every_answer(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    reply = "Odile Ferrant runs Tarnby Mills as chief executive [1]. She was born in Oslo [1]."
    openai_stub.script(text(reply), text(reply), text(reply))
    answerer = RetrievalContext(_checked_settings(llm_settings, drop=False)).answerer("llm")
    assert isinstance(answerer, CheckedAnswerer) and answerer.name == "llm:stub-model"

    blocking = answerer.answer(QUESTION, _result())
    awaited = asyncio.run(answerer.aanswer(QUESTION, _result()))

    async def stream() -> list[str | Answer]:
        return [item async for item in answerer.astream(QUESTION, _result())]

    *pieces, streamed = asyncio.run(stream())
    assert isinstance(streamed, Answer) and "".join(str(p) for p in pieces) == reply
    for answer in (blocking, awaited, streamed):
        assert answer.text == reply and answer.check is not None
        assert [s.supported for s in answer.check.sentences] == [True, False] and answer.check.unsupported == 1
        assert answer.check.sentences[1].missing == ["Oslo"] and answer.check.dropped == 0


def test_dropping_unsupported_sentences(openai_stub: OpenAIStub, llm_settings: Settings) -> None:
    answerer = RetrievalContext(_checked_settings(llm_settings, drop=True)).answerer("llm")
    openai_stub.script(
        text("Odile Ferrant runs Tarnby Mills as chief executive [1]. Corrow Paper bought it in 2024 [2].")
    )
    pruned = answerer.answer(QUESTION, _result())
    assert pruned.text == "Odile Ferrant runs Tarnby Mills as chief executive [1]." and [
        c.chunk_id for c in pruned.citations
    ] == ["mill"]
    assert pruned.check is not None and (pruned.check.unsupported, pruned.check.dropped) == (1, 1)

    openai_stub.script(text("Corrow Paper bought Tarnby Mills in 2024 [2]."))

    async def stream() -> list[str | Answer]:
        return [item async for item in answerer.astream(QUESTION, _result())]

    pieces = asyncio.run(stream())
    assert pieces[:-1] == [ABSTENTION]  # held back: the streamed text is the answer's
    final = pieces[-1]
    assert isinstance(final, Answer) and final.text == ABSTENTION and final.citations == []
    assert final.status is AnswerStatus.ABSTAINED and final.check is not None and final.check.dropped == 1


@pytest.mark.parametrize("enabled", [True, False])
def test_answer_check_off_leaves_answers_unchecked(enabled: bool) -> None:
    settings = Settings(_env_file=None, answer_check=enabled)  # type: ignore[call-arg]
    answerer = RetrievalContext(settings).answerer("extractive")
    assert isinstance(answerer, CheckedAnswerer) is enabled
    answer = answerer.answer(QUESTION, _result())
    assert (answer.check is not None) is enabled
