#!/usr/bin/env bash
# The default offline evaluation, committed in bench/eval/:
#   multihop-rag/ every registered mode (+ the oracle ceiling) on 800 MultiHop-RAG questions (seed 0) over the real
#              corpus (609 full articles), retrieval only;
#   sample200/ the same on the CS564 200-question sample, with the extractive answerer (no LLM is configured);
#   hotpotqa/  with DATASET=hotpotqa: every mode (+ oracle) on ../shared/data/hotpotqa (994 passages, 100
#              questions), retrieval scored by document title (Perfect@k, Recall@2/5, MRR; eval/scorers.py).
# It builds a throwaway Neo4j + Chroma from the shared corpus (offline extractor), so nothing of yours is touched.
#
#   bench/eval_offline.sh                 # everything
#   SYSTEMS=vector,bm25,graph bench/eval_offline.sh
#   SKIP_INGEST=1 bench/eval_offline.sh   # reuse the stores of a previous run in $EVAL_WORK
#   DATASET=hotpotqa bench/eval_offline.sh  # the title-scored HotpotQA set instead (hotpotqa/: its own stores)
#   DATASET=encyclopedia bench/eval_offline.sh  # tests/data/encyclopedia, title-scored (encyclopedia/)
set -euo pipefail
cd "$(dirname "$0")/.."

DATASET="${DATASET:-multihop-rag}"
case "$DATASET" in
  multihop-rag) WORK="${EVAL_WORK:-/tmp/graphwire-eval}" ;;
  hotpotqa) WORK="${EVAL_WORK:-/tmp/graphwire-eval-hotpotqa}" ;;  # a graph holds one corpus: separate stores
  encyclopedia) WORK="${EVAL_WORK:-/tmp/graphwire-eval-encyclopedia}" ;;
  *) echo "DATASET must be multihop-rag, hotpotqa or encyclopedia, not $DATASET" >&2; exit 2 ;;
esac
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
if [[ "$DATASET" == hotpotqa ]]; then
  # 994 Wikipedia paragraphs (title, body; null source and date), 100 questions scored by document title
  CORPUS="$DATA/hotpotqa/corpus.json" RUNS="hotpotqa" QUESTIONS="$DATA/hotpotqa/questions.json"
elif [[ "$DATASET" == encyclopedia ]]; then
  # the project's own 35 passages and 30 compositional questions, converted to the title-scored format
  .venv/bin/python -m bench.encyclopedia_titles "$WORK/data"
  CORPUS="$WORK/data/corpus.json" RUNS="encyclopedia" QUESTIONS="$WORK/data/questions.json"
else
  CORPUS="$DATA/multihop-rag/corpus.json" RUNS="multihop-rag sample200"
fi
if [[ -z "${SKIP_INGEST:-}" ]]; then
  $GW db init
  $GW ingest "$CORPUS" --extractor offline
fi

if [[ "$DATASET" != multihop-rag ]]; then
  $GW eval --questions "$QUESTIONS" --no-answers --systems "$SYSTEMS" --out "$WORK/$RUNS"
else
  $GW eval --sample "${SAMPLE:-800}" --no-answers --systems "$SYSTEMS" --out "$WORK/multihop-rag"
  $GW eval --questions "$DATA/cs564-sample-queries.json" --answerer extractive --systems "$SYSTEMS" \
    --out "$WORK/sample200"
fi

for run in $RUNS; do
  mkdir -p "bench/eval/$run"
  cp "$WORK/$run/report.md" "$WORK/$run/summary.json" "bench/eval/$run/"
  rm -rf "bench/eval/$run/charts" && cp -r "$WORK/$run/charts" "bench/eval/$run/charts"
done
echo "reports in:" && for run in $RUNS; do echo "  bench/eval/$run/report.md"; done
