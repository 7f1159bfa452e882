"""Was the graph (and the chunk store) built from the corpus the questions are scored against? Said plainly."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from graphwire.eval.questions import CorpusArticle


class StoreCheck(BaseModel):
    store: str  # "graph" or "chunk store"
    reachable: bool
    documents: int = 0
    matched: int = 0  # corpus titles found in the store
    missing: int = 0  # corpus titles not in the store
    extra: int = 0  # store titles not in the corpus
    error: str | None = None

    @property
    def built_from_corpus(self) -> bool:
        return self.reachable and self.missing == 0 and self.extra == 0 and self.documents > 0

    def sentence(self, corpus_size: int) -> str:
        if not self.reachable:
            return f"The {self.store} could not be checked ({self.error})."
        if self.built_from_corpus:
            return f"The {self.store} holds exactly the corpus's {corpus_size} articles."
        return (
            f"WARNING: the {self.store} was NOT built from this corpus: it holds {self.documents} documents, "
            f"{self.matched} of the corpus's {corpus_size} titles ({self.missing} missing, {self.extra} not in the "
            "corpus); scores are not comparable with runs on the corpus."
        )


class CorpusCheck(BaseModel):
    corpus_size: int
    stores: list[StoreCheck]

    @property
    def verdict(self) -> str:
        if not self.stores:
            return "No store was checked against the corpus."
        return " ".join(store.sentence(self.corpus_size) for store in self.stores)


def compare_titles(store: str, corpus: Sequence[CorpusArticle], titles: Iterable[str]) -> StoreCheck:
    """Titles are the only key both the corpus file and every store keep (ids depend on the loader)."""
    wanted = {a.title.strip() for a in corpus}
    found = [t.strip() for t in titles]
    have = set(found)
    return StoreCheck(
        store=store,
        reachable=True,
        documents=len(have),
        matched=len(wanted & have),
        missing=len(wanted - have),
        extra=len(have - wanted),
    )


def unreachable(store: str, exc: Exception) -> StoreCheck:
    return StoreCheck(store=store, reachable=False, error=f"{type(exc).__name__}: {exc}")
