#!/usr/bin/env bash
# A smoke run of `graphwire eval --answerer llm` with the local 0.5B model (not a quality claim): the demo corpus
# ingested with the offline extractor into the Neo4j at NEO4J_URI (emptied first), then the demo questions answered
# by the LLM for vector, graph and hybrid with the same model and prompt (3 excerpts of 400 characters: a 0.5B model
# on two busy cores read the default 10 x 800 at ~5 tokens/s). Results in bench/eval/llm_smoke/.
#
#   NEO4J_URI=bolt://127.0.0.1:17108 NEO4J_PASSWORD=... LLM_PORT=17107 LIMIT=6 bench/eval_llm_smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GW=".venv/bin/graphwire"
PORT="${LLM_PORT:-8080}"
WORK="$(mktemp -d -t graphwire-llm-smoke-XXXXXX)"
export CHROMA_PATH="$WORK/chroma" INGEST_STATE_PATH="$WORK/state" EXTRACTION_CACHE_PATH="$WORK/cache.sqlite"
export STORE_LOCK_DIR="$WORK/locks" ORT_DISABLE_TELEMETRY=1
unset LLM_BASE_URL LLM_MODEL
$GW llm fetch
$GW llm serve --port "$PORT" > "$WORK/llm-server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$WORK"' EXIT
$GW db reset --yes
$GW ingest data/demo/articles.jsonl --extractor offline > "$WORK/ingest.log"
until curl -sf "http://127.0.0.1:$PORT/health" > /dev/null; do
  kill -0 $server 2>/dev/null || { echo "the LLM server exited:" >&2; tail -5 "$WORK/llm-server.log" >&2; exit 1; }
  sleep 1
done
export LLM_BASE_URL="http://127.0.0.1:$PORT/v1" LLM_MODEL=qwen2.5-coder-0.5b-instruct-q4_k_m
rm -rf bench/eval/llm_smoke
EXCERPT_CAP="${EXCERPT_CAP:-3}" EXCERPT_CHARS="${EXCERPT_CHARS:-400}" $GW eval --demo --answerer llm --systems vector,graph,hybrid --out bench/eval/llm_smoke --no-charts ${LIMIT:+--limit $LIMIT}
rm -f bench/eval/llm_smoke/*.jsonl
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee bench/eval/llm_smoke/load.txt
