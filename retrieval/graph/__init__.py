"""The five-stage deterministic graph retriever (stages 1-4 here; stage 5 is an answerer in retrieval/answer)."""

from graphwire.retrieval.graph.retriever import GraphRetriever

__all__ = ["GraphRetriever"]
