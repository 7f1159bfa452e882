"""Flat index positions <-> PPR snapshot chunks for one pair of snapshots, and the pages a comparing question names.

joint scores every chunk of the flat index with signals computed on the PPR snapshot (the walks, the title pages);
`Alignment` maps between the two orders once per pair of snapshots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from graphwire.core.names import token_form
from graphwire.retrieval.flat.index import IndexSnapshot, Scores
from graphwire.retrieval.ppr.snapshot import GraphSnapshot
from graphwire.retrieval.question import QuestionSignals
from graphwire.schema.lexicon import phrase_pattern

_CHOICE = re.compile(rf"\b{phrase_pattern('choice_cues')}\b", re.IGNORECASE)


@dataclass(frozen=True)
class Alignment:
    """Flat index positions <-> PPR snapshot chunk indexes, for one pair of snapshots."""

    flat: IndexSnapshot
    walk: GraphSnapshot
    walk_of_flat: np.ndarray  # flat position -> walk chunk index, -1 when the graph lacks the chunk
    title_pages: sparse.csc_matrix  # the walk's chunk x entity title matrix, by entity

    @classmethod
    def of(cls, flat: IndexSnapshot, walk: GraphSnapshot) -> Alignment:
        index = walk.chunk_index
        walk_of_flat = np.array([index.get(c.id, -1) for c in flat.chunks], dtype=np.int64)
        return cls(flat, walk, walk_of_flat, walk.titles.tocsc())

    def titled_by(self, seeds: dict[int, float]) -> Scores:
        """The pages whose title entity is one of `seeds`, scored by the seed's weight (0 elsewhere), in flat order."""
        pages = np.zeros(len(self.walk.chunk_ids), dtype=np.float64)
        titles = self.title_pages
        for entity, weight in seeds.items():
            rows = titles.indices[titles.indptr[entity] : titles.indptr[entity + 1]]
            pages[rows] = np.maximum(pages[rows], weight)
        return self.on_flat(pages)

    def linked_from(self, positions: np.ndarray) -> Scores:
        """1 on the pages the chunks at these flat positions link to (whose title entity they mention) and on those
        chunks themselves, 0 elsewhere (all 0 when they link nowhere), in flat order: where a passage's own words
        send a reader next. The rest of a passage's own document is not a link (a news article whose headline was
        read as an entity names it in every chunk), nor is a page that bears one of the passage's own names: the page
        of the novel "X" names "X", itself, not the film "X" whose title entity the mention was resolved to."""
        known = positions[self.walk_of_flat[positions] >= 0]
        rows = self.walk_of_flat[known]
        titled, own = self.walk.titled, set(self.walk.titles[rows].indices.tolist())
        own_names = self._names(own)
        mentioned = (int(e) for e in np.unique(self.walk.mentions[rows].indices))
        entities = {e: 1.0 for e in mentioned if e in titled and e not in own and not self._names({e}) & own_names}
        if not entities:  # also when no passage is in the graph
            return np.zeros(len(self.walk_of_flat), dtype=np.float64)
        pages = self.titled_by(entities)
        pages[known] = 1.0
        return pages

    def _names(self, entities: set[int]) -> set[str]:
        """The names and aliases of `entities`, in token form."""
        walk = self.walk
        return {token_form(n) for e in entities for n in (walk.entity_names[e], *walk.entity_aliases[e])} - {""}

    def on_flat(self, walk_scores: np.ndarray) -> Scores:
        present = self.walk_of_flat >= 0
        out = np.zeros(len(self.walk_of_flat), dtype=np.float64)
        out[present] = walk_scores[self.walk_of_flat[present]]
        return out


def compared_titles(signals: QuestionSignals, walk: GraphSnapshot, entity_seeds: dict[int, float]) -> dict[int, float]:
    """The seeds that are a document's title entity when the question compares two or more of them (a yes/no form,
    a comparison cue or a choice between them: "Which came first, X or Y?"); none otherwise. Such a question needs
    each compared thing's own page; a bridge question's other titled seeds are often pages it only passes through."""
    titled = {entity: weight for entity, weight in entity_seeds.items() if entity in walk.titled}
    compares = signals.yes_no or bool(signals.comparison_cues) or _CHOICE.search(signals.question) is not None
    return titled if len(titled) >= 2 and compares else {}
