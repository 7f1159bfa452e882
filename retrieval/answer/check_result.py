"""What answer checking (`retrieval.answer.checking`) says of an answer: per sentence, the evidence it rests on."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SentenceCheck(BaseModel):
    text: str = Field(description="The answer's sentence, as written (citation markers included).")
    score: float = Field(description="Share of the sentence's names, numbers, dates and words the evidence holds, 0-1.")
    supported: bool = Field(
        description="False when a name, number or date of the sentence is in none of its evidence sentences, or too "
        "few of its words are."
    )
    chunk_ids: list[str] = Field(default_factory=list, description="The chunks of its evidence sentences.")
    evidence: list[str] = Field(default_factory=list, description="The evidence sentences it rests on, best first.")
    missing: list[str] = Field(
        default_factory=list, description="Its names, numbers and dates that no evidence sentence chosen holds."
    )


class AnswerCheck(BaseModel):
    sentences: list[SentenceCheck] = Field(
        default_factory=list,
        description="Every sentence of the answer (none for the abstention, which claims nothing).",
    )
    score: float = Field(description="Mean of the sentence scores (1.0 for the abstention).")
    unsupported: int = Field(description="Sentences flagged as unsupported by the retrieved evidence.")
    dropped: int = Field(
        default=0, description="Unsupported sentences removed from the answer text (ANSWER_DROP_UNSUPPORTED)."
    )
