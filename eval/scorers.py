"""Retrieval and answer scorers.

Retrieval metrics follow `retrieval_evaluate.py` of MultiHop-RAG (yixuantt/MultiHop-RAG) line by line: only spaces and
newlines are removed before the substring test, ranks 1..10 are scanned, and MAP@10 divides the sum of
"new gold facts at this rank / rank" by min(#gold, 10). Null questions are excluded by the caller (aggregate).

Answer scorers, all labelled in reports:
- `official_word_overlap`: MultiHop-RAG's `qa_evaluate.py` (correct when prediction and gold share one lower-cased
  whitespace token, after pulling the text out of 'The answer to the question is "..."');
- `cs564_lenient`: the CS564 "From Vector RAG to GraphRAG" study's `evaluate_results.py` scorer, kept to reproduce its
  numbers. It tests substrings both ways, so a "no" gold answer matches the prediction "unknown" (the "no" in "unknown"
  bug) and any one-letter answer found in the gold is correct;
- `strict`: graphwire's scorer without those traps: abstentions are detected first, yes/no golds need exactly one
  polarity at the start of the answer, other golds need the same normalised entity (order-free for lists).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel

from graphwire.retrieval.models import ABSTENTION

# ---------------------------------------------------------------------------------------------------------------------
# Retrieval


def squash(text: str) -> str:
    """The official normalisation: spaces and newlines removed (tabs and other whitespace are kept, as upstream)."""
    return text.replace(" ", "").replace("\n", "")


class RetrievalScore(BaseModel):
    """Per-question retrieval scores; aggregate means over non-null questions reproduce the official numbers."""

    hits_at_4: float
    hits_at_10: float
    map_at_10: float
    mrr_at_10: float
    perfect_at_4: float
    perfect_at_10: float
    article_precision_at_10: float
    article_recall_at_10: float
    gold_found_at: list[int | None]  # per gold fact: the first rank (1-based) whose chunk holds it, else None

    def recall_at(self, k: int) -> float:
        """The share of gold facts in the top k chunks."""
        found = self.gold_found_at
        return sum(1 for r in found if r is not None and r <= k) / len(found) if found else 0.0

    @property
    def recall_at_2(self) -> float:
        return self.recall_at(2)

    @property
    def recall_at_5(self) -> float:
        return self.recall_at(5)


def official_ranking_scores(retrieved: Sequence[str], gold: Sequence[str]) -> tuple[float, float, float, float]:
    """Hits@10, Hits@4, AP@10 and RR@10 for one question, exactly as MultiHop-RAG's `calculate_metrics` loop body."""
    gold_n = [squash(item) for item in gold]
    retrieved_n = [squash(item) for item in retrieved]
    hits_10 = hits_4 = False
    ap_sum = 0.0
    first_rank: int | None = None
    found: list[str] = []
    for rank, chunk in enumerate(retrieved_n[:11], start=1):
        if rank > 10 or not any(g in chunk for g in gold_n):
            continue
        hits_10 = True
        first_rank = first_rank or rank
        hits_4 = hits_4 or rank <= 4
        count = 0
        for g in gold_n:
            if g in chunk and g not in found:
                count += 1
                found.append(g)
        ap_sum += count / rank
    return float(hits_10), float(hits_4), ap_sum / min(len(gold_n), 10), (1 / first_rank if first_rank else 0.0)


def first_ranks(retrieved: Sequence[str], gold: Sequence[str]) -> list[int | None]:
    """For each gold fact, the first rank whose chunk contains it (official normalisation), else None."""
    retrieved_n = [squash(item) for item in retrieved]
    ranks: list[int | None] = []
    for fact in gold:
        needle = squash(fact)
        ranks.append(next((rank for rank, chunk in enumerate(retrieved_n, 1) if needle in chunk), None))
    return ranks


def perfect_at(ranks: Sequence[int | None], k: int) -> float:
    """1.0 when every gold fact sits in the top k chunks."""
    return float(bool(ranks) and all(r is not None and r <= k for r in ranks))


def article_precision_recall(
    retrieved_titles: Sequence[str], gold_titles: Sequence[str], k: int
) -> tuple[float, float]:
    """Precision and recall of the distinct article titles among the top k chunks against the gold titles."""
    top = list(dict.fromkeys(t.strip() for t in retrieved_titles[:k]))
    gold = set(t.strip() for t in gold_titles)
    hits = sum(1 for t in top if t in gold)
    precision = hits / len(top) if top else 0.0
    recall = hits / len(gold) if gold else 0.0
    return precision, recall


def score_retrieval(
    retrieved_texts: Sequence[str],
    retrieved_titles: Sequence[str],
    gold_facts: Sequence[str],
    gold_titles: Sequence[str],
) -> RetrievalScore:
    """All retrieval scores of one non-null question; chunks are best first."""
    if not gold_facts:
        raise ValueError("retrieval is scored on questions with gold evidence only (null questions are excluded)")
    hits_10, hits_4, ap_10, rr_10 = official_ranking_scores(retrieved_texts, gold_facts)
    ranks = first_ranks(retrieved_texts, gold_facts)
    precision, recall = article_precision_recall(retrieved_titles, gold_titles, 10)
    return RetrievalScore(
        hits_at_4=hits_4,
        hits_at_10=hits_10,
        map_at_10=ap_10,
        mrr_at_10=rr_10,
        perfect_at_4=perfect_at(ranks, 4),
        perfect_at_10=perfect_at(ranks, 10),
        article_precision_at_10=precision,
        article_recall_at_10=recall,
        gold_found_at=ranks,
    )


# ---------------------------------------------------------------------------------------------------------------------
# Retrieval scored by document title (the encyclopedia format: HotpotQA-style `gold_titles`)

TITLE_PERFECT_KS = (2, 5, 8, 10)
TITLE_RECALL_KS = (2, 5)


def normalize_title(title: str) -> str:
    """Titles compare after Unicode NFC and outer whitespace; case and inner punctuation are kept ("X (film)")."""
    return unicodedata.normalize("NFC", title).strip()


def distinct_titles(retrieved_titles: Sequence[str]) -> list[str]:
    """The retrieved documents in rank order, each once: chunks of the same document count at their first rank."""
    return list(dict.fromkeys(normalize_title(t) for t in retrieved_titles))


class TitleRetrievalScore(BaseModel):
    """Per-question scores by title; k counts distinct document titles, not chunks."""

    perfect_at_2: float
    perfect_at_5: float
    perfect_at_8: float
    perfect_at_10: float
    recall_at_2: float
    recall_at_5: float
    mrr: float  # 1 / the distinct-title rank of the first gold document (0 when none was retrieved)
    titles_retrieved: float  # distinct titles among the retrieved chunks
    gold_title_ranks: list[int | None]  # per gold title: its 1-based distinct-title rank, else None


def title_ranks(retrieved_titles: Sequence[str], gold_titles: Sequence[str]) -> list[int | None]:
    """For each gold title, its 1-based rank among the distinct retrieved titles, else None."""
    ranked = {title: rank for rank, title in enumerate(distinct_titles(retrieved_titles), start=1)}
    return [ranked.get(normalize_title(title)) for title in gold_titles]


def score_titles(retrieved_titles: Sequence[str], gold_titles: Sequence[str]) -> TitleRetrievalScore:
    """Perfect@k (every gold title among the first k distinct titles), Recall@k (share of gold titles there), MRR."""
    gold = list(dict.fromkeys(normalize_title(t) for t in gold_titles))
    if not gold:
        raise ValueError("title scoring needs at least one gold title")
    ranks = title_ranks(retrieved_titles, gold)

    def recall(k: int) -> float:
        return sum(1 for r in ranks if r is not None and r <= k) / len(gold)

    found = [r for r in ranks if r is not None]
    return TitleRetrievalScore(
        **{f"perfect_at_{k}": perfect_at(ranks, k) for k in TITLE_PERFECT_KS},
        **{f"recall_at_{k}": recall(k) for k in TITLE_RECALL_KS},
        mrr=1 / min(found) if found else 0.0,
        titles_retrieved=float(len(distinct_titles(retrieved_titles))),
        gold_title_ranks=ranks,
    )


# ---------------------------------------------------------------------------------------------------------------------
# Answers


class Outcome(StrEnum):
    CORRECT = "correct"  # right answer, or an abstention on a null question
    WRONG = "wrong"  # an answer, not the gold one
    MISS = "miss"  # abstained although the question has an answer
    HALLUCINATION = "hallucination"  # answered a null question


def official_word_overlap(prediction: str, gold: str) -> bool:
    """MultiHop-RAG `qa_evaluate.py`: any shared lower-cased whitespace token counts as correct."""
    if "The answer" in prediction:
        match = re.search(r'The answer to the question is "(.*?)"', prediction)
        prediction = match.group(1) if match else prediction
    return bool(set(prediction.lower().split()) & set(gold.lower().split()))


def _cs564_normalize(value: str | None) -> str:
    """The CS564 study's `normalize`, transcribed (pandas NaN handling reduced to None)."""
    if value is None:
        return "unknown"
    val = str(value).strip().lower().rstrip(".")
    if val in ("", "none", "insufficient information"):
        return "unknown"
    if len(val) == 1 and val in ("u", "c", "a", "s"):
        return "unknown"
    if "," in val:
        parts = [p.strip() for p in val.split(",")]
        if all(p in ("yes", "no") for p in parts):
            return parts[0]
    if "\n" in val:
        parts = [p.strip() for p in val.split("\n") if p.strip()]
        if all(p.lower() in ("yes", "no") for p in parts):
            return parts[0].lower()
    if val in ("true", "aligned", "consistent"):
        return "yes"
    return val


def cs564_lenient(prediction: str | None, gold: str) -> bool:
    """The CS564 study's `is_correct` after its `normalize`. Has the "no" in "unknown" bug; reproduction only."""
    expected, predicted = _cs564_normalize(gold), _cs564_normalize(prediction)
    if expected == predicted or expected in predicted or predicted in expected:
        return True
    exp_parts = set(expected.replace(",", " ").replace(" and ", " ").split())
    pred_parts = set(predicted.replace(",", " ").replace(" and ", " ").split())
    return len(exp_parts) > 2 and exp_parts == pred_parts


ABSTENTION_FORMS = frozenset(
    {
        "insufficient information",
        "unknown",
        "i dont know",
        "i do not know",
        "not enough information",
        "cannot be determined",
        "none",
        "",
    }
)
_ARTICLES = frozenset({"a", "an", "the"})
_POLARITY = {"yes": "yes", "no": "no"}
_POSSESSIVE_S = re.compile(r"['’]s\b")


def normalize_answer(text: str) -> str:
    """Lower case, accents folded, apostrophes dropped, other punctuation to spaces, articles removed."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    folded = re.sub(r"['’`]", "", folded)
    folded = re.sub(r"[^a-z0-9]+", " ", folded)
    return " ".join(word for word in folded.split() if word not in _ARTICLES)


def is_abstention(text: str | None) -> bool:
    """`Insufficient information.` (graphwire's ABSTENTION) and its usual paraphrases count as abstaining."""
    if text is None:
        return True
    return text.strip() == ABSTENTION or normalize_answer(text) in ABSTENTION_FORMS


def _strict_match(prediction: str, gold: str) -> bool:
    pred, want = normalize_answer(prediction), normalize_answer(gold)
    if want in _POLARITY:
        words = pred.split()
        other = "no" if want == "yes" else "yes"
        return bool(words) and words[0] == want and other not in words
    if pred == want:
        return True
    without_parenthetical = normalize_answer(re.sub(r"\([^)]*\)", " ", prediction))
    if without_parenthetical == want:
        return True
    pred_set = set(pred.replace(" and ", " ").split())
    want_set = set(want.replace(" and ", " ").split())
    return len(want_set) >= 2 and pred_set == want_set


def strict_outcome(prediction: str | None, gold: str, answerable: bool = False) -> Outcome:
    """Graphwire's strict verdict: abstention first, then exact yes/no or normalised entity match. `answerable`:
    the question set has no abstention class (title-scored sets), so the gold is never read as an abstention."""
    gold_is_null = not answerable and is_abstention(gold)
    if is_abstention(prediction):
        return Outcome.CORRECT if gold_is_null else Outcome.MISS
    if gold_is_null:
        return Outcome.HALLUCINATION
    assert prediction is not None
    return Outcome.CORRECT if _strict_match(prediction, gold) else Outcome.WRONG


def gold_in_quote(quote: str, gold: str) -> bool | None:
    """Whether a quoted answer's sentences hold the gold answer (normalised, as whole words); None when the gold is
    yes/no or an abstention, which no quoted sentence holds. A possessive holds its name ("OpenAI's": OpenAI)."""
    want = normalize_answer(gold)
    if not want or want in _POLARITY or is_abstention(gold):
        return None
    return f" {want} " in f" {normalize_answer(_POSSESSIVE_S.sub('', quote))} "


class AnswerScore(BaseModel):
    strict: Outcome
    official_word_overlap: bool
    cs564_lenient: bool


def score_answer(prediction: str | None, gold: str, answerable: bool = False) -> AnswerScore:
    return AnswerScore(
        strict=strict_outcome(prediction, gold, answerable),
        official_word_overlap=official_word_overlap(prediction or "", gold),
        cs564_lenient=cs564_lenient(prediction, gold),
    )
