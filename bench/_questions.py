"""What the embedding benchmarks share: the question sample (`--questions`, `--sample`, seed 0) and the configured
offline embedder."""

from __future__ import annotations

import argparse
from pathlib import Path

from graphwire.core.clients.embeddings import OnnxEmbedder, embedder_from_settings
from graphwire.core.settings import Settings
from graphwire.eval.datasets import DEFAULT_QUESTIONS, load_questions
from graphwire.eval.selection import select


def add_sample_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--sample", type=int, default=200, help="a random sample of N questions (seed 0); 0 = all")


def sampled_questions(args: argparse.Namespace) -> list[str]:
    """The texts of the questions `add_sample_flags` chose."""
    return [q.query for q in select(load_questions(args.questions), sample_size=args.sample or None)]


def onnx_embedder(parser: argparse.ArgumentParser, settings: Settings) -> OnnxEmbedder:
    """The settings' embedder, which must be an offline ONNX one (else the parser's error)."""
    embedder = embedder_from_settings(settings)
    if not isinstance(embedder, OnnxEmbedder):
        parser.error("the configured embedder is not an ONNX one")
    return embedder
