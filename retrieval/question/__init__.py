"""Question analysis shared by the flat, hybrid and graph retrievers: pure functions, no I/O.

- `outlets`: publications named in a question, from a gazetteer of the corpus's `source` values plus short outlet
  forms (schema data: `question_outlets`, `question_aliases`, `not_outlet_after`);
- `clauses`: clause-level segments (roughly one claim each) and the clause each publication mention governs;
- `dates`: dates and time expressions with the relation the question puts on them (on / before / after);
- `cues`: temporal and comparison cues, the yes/no form, and the whole analysis (`QuestionSignals`).
"""

from graphwire.retrieval.question.clauses import MIN_CLAIM_WORDS, Segment, split_segments
from graphwire.retrieval.question.cues import QuestionSignals, question_signals
from graphwire.retrieval.question.dates import MONTHS, DateMention, DateRelation, Granularity, find_dates
from graphwire.retrieval.question.outlets import OutletGazetteer, PublicationMention, outlet_head

__all__ = [
    "MIN_CLAIM_WORDS",
    "MONTHS",
    "DateMention",
    "DateRelation",
    "Granularity",
    "OutletGazetteer",
    "PublicationMention",
    "QuestionSignals",
    "Segment",
    "find_dates",
    "outlet_head",
    "question_signals",
    "split_segments",
]
