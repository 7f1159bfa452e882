"""Clients of the stores and services: the Neo4j driver and its circuit breaker, Chroma and the chunk store,
embedders, the LLM client with its retry policy and usage accounting."""
