#!/usr/bin/env bash
# Builds univk's libFuzzer targets (clang, ASan+UBSan, coverage-instrumented parsers) and runs
# each for a bounded time; any crash, sanitizer report, leak or timeout fails the run.
#
#   fuzz/run_fuzzers.sh [seconds per target]      default 20 (CI), e.g. 300 for a longer session
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_SECONDS (same as the argument),
# FUZZ_ONLY (run only the fuzzers whose name contains this string).
# Corpus: seeds written by univk_fuzz_seeds (made with univk's own writers from the unit tests'
# inputs), Arm's sample VGF files (../shared/testdata) and the committed regression inputs of
# tests/fuzz/inputs/<fuzzer>/. New inputs found go to $FUZZ_BUILD_DIR/fuzz-corpus/<fuzzer>/,
# crashing inputs to $FUZZ_BUILD_DIR/fuzz-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/bin:$PATH
seconds=${1:-${FUZZ_SECONDS:-20}}
build=${FUZZ_BUILD_DIR:-build-fuzz}

# Optimised with line tables only: quick to build, symbolized stacks in reports.
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" \
  -DUNIVK_BUILD_FUZZERS=ON -DUNIVK_ENABLE_ASAN=ON -DUNIVK_BUILD_TESTS=OFF -DUNIVK_BUILD_PYTHON=OFF \
  -DUNIVK_BUILD_TOOLS=ON -DUNIVK_BUILD_BENCHMARKS=OFF -DUNIVK_BUILD_COMPILER=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target univk_fuzzers

seeds=$build/fuzz-seeds
rm -rf "$seeds"
"$build/fuzz/univk_fuzz_seeds" "$seeds"
samples=../shared/testdata/arm-vgf-samples
if [ -d "$samples" ]; then
  mkdir -p "$seeds/vgf_decoder_fuzzer"
  cp "$samples"/*.vgf "$seeds/vgf_decoder_fuzzer/" 2>/dev/null || true
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
summary=()
for fuzzer in "$build"/fuzz/*_fuzzer; do
  name=$(basename "$fuzzer")
  if [ -n "${FUZZ_ONLY:-}" ] && [[ "$name" != *"$FUZZ_ONLY"* ]]; then continue; fi
  corpus=$build/fuzz-corpus/$name
  artifacts=$build/fuzz-artifacts
  mkdir -p "$corpus" "$artifacts" "$seeds/$name"
  dirs=("$corpus" "$seeds/$name")
  [ -d "tests/fuzz/inputs/$name" ] && dirs+=("tests/fuzz/inputs/$name")
  log=$build/fuzz-$name.log
  echo "--- $name: ${seconds}s"
  status=0
  "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$name-" "${dirs[@]}" >"$log" 2>&1 || status=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
  corpus_size=$(find "$corpus" -type f | wc -l)
  summary+=("$name: $execs executions in ${seconds}s, coverage $cov edges, corpus $corpus_size")
  if [ "$status" -ne 0 ]; then
    failed+=("$name")
    echo "!!! $name failed (exit $status); last lines of $log:"
    tail -n 60 "$log"
  fi
done

printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzzers failed: ${failed[*]} (crashing inputs in $build/fuzz-artifacts)"
  exit 1
fi
echo "all fuzzers ran clean"
