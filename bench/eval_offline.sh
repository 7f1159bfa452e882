#!/usr/bin/env bash
# The default offline evaluation, committed in bench/eval/:
#   full/      every registered mode (+ the oracle ceiling) on all 2,556 MultiHop-RAG questions, retrieval only;
#   sample200/ the same on the CS564 200-question sample, with the extractive answerer (no LLM is configured).
# It builds a throwaway Neo4j + Chroma from the shared corpus (offline extractor), so nothing of yours is touched.
#
#   bench/eval_offline.sh                 # everything
#   SYSTEMS=vector,bm25,graph bench/eval_offline.sh
#   SKIP_INGEST=1 bench/eval_offline.sh   # reuse the stores of a previous run in $EVAL_WORK
set -euo pipefail
cd "$(dirname "$0")/.."

WORK="${EVAL_WORK:-/tmp/graphwire-eval}"
DATA="${DATA:-../shared/data}"
export NEO4J_HOME="$WORK/neo4j" CHROMA_PATH="$WORK/chroma" EXTRACTION_CACHE_PATH="$WORK/cache/extractions.sqlite"
export NEO4J_URI="bolt://127.0.0.1:${EVAL_BOLT_PORT:-7697}" NEO4J_HTTP_PORT="${EVAL_HTTP_PORT:-7484}"
unset NEO4J_PASSWORD LLM_BASE_URL LLM_MODEL  # the local password file; offline (extractive) answers
export ORT_DISABLE_TELEMETRY=1
GW=".venv/bin/graphwire"
SYSTEMS="${SYSTEMS:-all},oracle"

mkdir -p "$WORK"
$GW neo4j start
trap '$GW neo4j stop' EXIT
if [[ -z "${SKIP_INGEST:-}" ]]; then
  $GW db init
  $GW ingest "$DATA/multihop-rag/corpus.facts.json" --extractor offline
fi

$GW eval --no-answers --systems "$SYSTEMS" --out "$WORK/full"
$GW eval --questions "$DATA/cs564-sample-queries.json" --answerer extractive --systems "$SYSTEMS" --out "$WORK/sample200"

for run in full sample200; do
  mkdir -p "bench/eval/$run"
  cp "$WORK/$run/report.md" "$WORK/$run/summary.json" "bench/eval/$run/"
  rm -rf "bench/eval/$run/charts" && cp -r "$WORK/$run/charts" "bench/eval/$run/charts"
done
echo "reports in bench/eval/{full,sample200}/report.md"
