"""Answerers: extractive (no LLM) and LLM."""
