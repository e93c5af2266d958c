#!/usr/bin/env bash
# Runs issue 7's benchmarks end to end and writes the results to RESULTS_DIR.
#
#   bash bench/run_all.sh RESULTS_DIR [--build-dir DIR] [--bench PATH] [--python PY]
#        [--export-python PY] [--export | --no-export] [--iterations N] [--warmup W]
#        [--large-iterations N] [--iterations-for NAME=N ...] [--bench-args 'ARGS'] [--skip-large]
#        [--no-compile] [--only NAME ...]
#
# 1. export (unless --no-export, or bench/out/workloads.json exists and --export is not given):
#    EXPORT_PY bench/export_workloads.py with the univk Python module of BUILD_DIR
#    (default /usr/bin/python3: the module is built for it);
# 2. compare: PY bench/compare_pytorch.py (PY defaults to python3; it needs torch only) with
#    univk-bench from BUILD_DIR (default build) or --bench.
# RESULTS_DIR gets table.md, results.json and the log of the run (run.log).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

RESULTS_DIR=${1:?usage: bash bench/run_all.sh RESULTS_DIR [options] (see the header of bench/run_all.sh)}
shift
BUILD_DIR="$ROOT/build"
BENCH=""
PY=${PYTHON:-python3}
EXPORT_PY=/usr/bin/python3
EXPORT=auto
COMPARE_ARGS=()
ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD_DIR=$2; shift 2 ;;
    --bench) BENCH=$2; shift 2 ;;
    --python) PY=$2; shift 2 ;;
    --export-python) EXPORT_PY=$2; shift 2 ;;
    --export) EXPORT=yes; shift ;;
    --no-export) EXPORT=no; shift ;;
    --iterations|--warmup|--large-iterations|--iterations-for) COMPARE_ARGS+=("$1" "$2"); shift 2 ;;
    --bench-args) COMPARE_ARGS+=("--bench-args=$2"); shift 2 ;;
    --skip-large|--no-compile) COMPARE_ARGS+=("$1"); shift ;;
    --only) shift; while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do ONLY+=("$1"); shift; done ;;
    *) echo "run_all.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
BENCH=${BENCH:-$BUILD_DIR/tools/univk_bench/univk-bench}
WORKLOADS="$ROOT/bench/out/workloads.json"

mkdir -p "$RESULTS_DIR"
exec > >(tee "$RESULTS_DIR/run.log") 2>&1
echo "== run_all.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"

if [ ! -x "$BENCH" ]; then
  echo "run_all.sh: $BENCH is not an executable (build the univk-bench target)" >&2
  exit 1
fi
if [ "$EXPORT" = yes ] || { [ "$EXPORT" = auto ] && [ ! -f "$WORKLOADS" ]; }; then
  echo "== export: $EXPORT_PY bench/export_workloads.py --build-dir $BUILD_DIR"
  "$EXPORT_PY" "$ROOT/bench/export_workloads.py" --build-dir "$BUILD_DIR" --out "$ROOT/bench/out" \
    ${ONLY[@]+--only "${ONLY[@]}"}
elif [ ! -f "$WORKLOADS" ]; then
  echo "run_all.sh: $WORKLOADS is missing and --no-export was given (export here, then carry bench/out)" >&2
  exit 1
fi

echo "== compare: $PY bench/compare_pytorch.py"
"$PY" "$ROOT/bench/compare_pytorch.py" --bench "$BENCH" --workloads "$WORKLOADS" --out "$RESULTS_DIR" \
  ${COMPARE_ARGS[@]+"${COMPARE_ARGS[@]}"} ${ONLY[@]+--only "${ONLY[@]}"}
