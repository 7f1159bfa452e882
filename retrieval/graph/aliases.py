"""Stage 1: find the question's entity mentions, named publications, dates and before/after cue.

The deterministic extractor is always on: question spans are looked up in the graph's name/alias index (longest
match first), capitalised spans the index does not know are kept for fuzzy matching, and publications, dates and
cues come from the shared question parser (`retrieval/question/`) over an outlet gazetteer built from the graph.
When an LLM is configured its proposals (1-4 proper nouns with aliases) are added.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from graphwire.core.names import match_form
from graphwire.retrieval.graph.dates import date_windows
from graphwire.retrieval.graph.models import Mention, MentionOrigin, PublicationMatch, QuestionAnalysis
from graphwire.retrieval.graph.names import NameIndex
from graphwire.retrieval.graph.text import CALENDAR_WORDS, QUESTION_WORDS, STOPWORDS, Token, tokenize
from graphwire.retrieval.question import QuestionSignals, question_signals

# Lower-case words allowed inside a capitalised name ("Bank of America", "Procter & Gamble").
_CONNECTORS = frozenset({"of", "and", "&", "de", "du", "la", "le", "van", "von", "der", "for", "the", "on", "in"})
_MAX_SPAN_TOKENS = 6
_NUMBER = re.compile(r"[\d.,\s%$]+")  # "12,000" or "2023" alone is a quantity, not a name

LlmAliasFn = Callable[[str], Sequence[Mention]]


def _is_noise(token: Token) -> bool:
    low = token.text.lower()
    return low in QUESTION_WORDS or low in CALENDAR_WORDS or low in STOPWORDS


def find_publications(signals: QuestionSignals, index: NameIndex) -> list[PublicationMatch]:
    """The publication nodes behind the outlets the question names (one per node, first mention wins)."""
    found: dict[str, PublicationMatch] = {}
    for mention in signals.publications:
        for node in index.publication_nodes(mention.sources or [mention.name]):
            found.setdefault(node.key, PublicationMatch(surface=mention.mention, key=node.key, name=node.name))
    return list(found.values())


def _overlaps(start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return any(start < e and s < end for s, e in taken)


def gazetteer_mentions(tokens: list[Token], index: NameIndex, taken: list[tuple[int, int]]) -> list[Mention]:
    """Longest-first spans whose normalised text is a node name or alias; spans must look like proper nouns."""
    norms = [match_form(t.text) for t in tokens]
    free = [not _overlaps(t.start, t.end, taken) for t in tokens]
    caps = [t.capitalised for t in tokens]
    lows = [t.text.lower() for t in tokens]
    noise = [_is_noise(t) for t in tokens]

    def looks_like_name(i: int, n: int) -> bool:
        if not any(caps[i : i + n]) or lows[i] in _CONNECTORS or lows[i + n - 1] in _CONNECTORS:
            return False
        return not (n == 1 and noise[i])

    mentions: list[Mention] = []
    i = 0
    while i < len(tokens):
        matched = 0
        longest = min(index.max_tokens, _MAX_SPAN_TOKENS, len(tokens) - i)
        for n in range(longest, 0, -1):
            if not all(free[i : i + n]) or not looks_like_name(i, n):
                continue
            span = tokens[i : i + n]
            norm = " ".join(x for x in norms[i : i + n] if x)
            variants = (norm, norm[4:]) if norm.startswith("the ") else (norm,)
            keys = [node.key for v in variants for node in index.lookup(v) if node.label != index.publisher]
            if keys:
                start, end = span[0].start, span[-1].end
                text = " ".join(t.text for t in span)
                mention = Mention(
                    text=text,
                    origin=MentionOrigin.GAZETTEER,
                    start=start,
                    end=end,
                    exact_keys=list(dict.fromkeys(keys)),
                )
                mentions.append(mention)
                taken.append((start, end))
                free[i : i + n] = [False] * n
                matched = n
                break
        i += matched or 1
    return mentions


def capitalised_spans(tokens: list[Token], taken: list[tuple[int, int]]) -> list[Mention]:
    """Runs of capitalised tokens (with connectors inside) that no earlier pass claimed: candidates for stage 2."""
    mentions: list[Mention] = []
    run: list[Token] = []

    def flush() -> None:
        while run and (run[-1].text.lower() in _CONNECTORS or _is_noise(run[-1]) or _NUMBER.fullmatch(run[-1].text)):
            run.pop()
        while run and (_is_noise(run[0]) or _NUMBER.fullmatch(run[0].text)):
            run.pop(0)
        text = " ".join(t.text for t in run)
        if run and len(match_form(text)) >= 3 and not _NUMBER.fullmatch(text):
            mentions.append(Mention(text=text, origin=MentionOrigin.SPAN, start=run[0].start, end=run[-1].end))
        run.clear()

    for token in tokens:
        if _overlaps(token.start, token.end, taken):
            flush()
        elif (token.capitalised and token.text.lower() not in CALENDAR_WORDS) or (
            run and token.text.lower() in _CONNECTORS
        ):
            run.append(token)
        else:
            flush()
    flush()
    return mentions


def analyse_question(question: str, index: NameIndex, llm_aliases: LlmAliasFn | None = None) -> QuestionAnalysis:
    """Stage 1 over one question (deterministic, plus the LLM's proposals when given)."""
    signals = question_signals(question, index.gazetteer)
    publications = find_publications(signals, index)
    taken = [(p.start, p.end) for p in signals.publications] + [(d.start, d.end) for d in signals.dates]
    tokens = tokenize(question)
    mentions = gazetteer_mentions(tokens, index, taken)
    mentions += capitalised_spans(tokens, taken)
    extractors = ["deterministic"]
    if llm_aliases is not None:
        mentions = _merge(mentions, list(llm_aliases(question)))
        extractors.append("llm")
    return QuestionAnalysis(
        question=question,
        mentions=mentions,
        publications=publications,
        sources=signals.sources,
        unknown_publications=[name for name in signals.unknown_publications if not index.publication_nodes([name])],
        dates=date_windows(signals),
        signals=signals,
        extractors=extractors,
    )


def _merge(deterministic: list[Mention], proposed: list[Mention]) -> list[Mention]:
    seen = {match_form(m.text) for m in deterministic}
    merged = list(deterministic)
    for mention in proposed:
        norm = match_form(mention.text)
        if norm and norm not in seen:
            seen.add(norm)
            merged.append(mention)
    return merged


class AliasStage:
    """Stage 1 with a bounded LRU cache keyed by (question, name-index version)."""

    def __init__(self, llm_aliases: LlmAliasFn | None = None, cache_size: int = 2048) -> None:
        self.llm_aliases = llm_aliases
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, tuple[int, ...]], QuestionAnalysis] = OrderedDict()
        self._lock = threading.Lock()

    def run(self, question: str, index: NameIndex) -> QuestionAnalysis:
        cache_key = (re.sub(r"\s+", " ", question.strip()), index.version)
        with self._lock:
            if cache_key in self._cache:
                self._cache.move_to_end(cache_key)
                return self._cache[cache_key]
        analysis = analyse_question(cache_key[0], index, self.llm_aliases)
        with self._lock:
            self._cache[cache_key] = analysis
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return analysis
