#!/usr/bin/env bash
# Runs univk's GPU measurements on the device tool's machine, from what bench/device/pack.sh
# packed here (carry [".gl", "bench/out/device"]); the repository root is the working folder.
#
#   bash bench/device/run.sh PLAN...
#
# Plans, in the order given, each writing $OUT/PLAN.log (the device tool brings $OUT back):
#   check     kernels_test, every case (the cooperative-matrix ones need a GPU that has them)
#   models    univk-bench --mode fused on every packed program, precision=fp16 and fp32
#   compare   bench/compare_pytorch.py on every packed program (PyTorch eager and torch.compile
#             in the same run): batch-32 programs with precision=fp16, the others fp32;
#             results.json as $OUT/compare.json
#   kernels   univk-kernel-bench: the floors, the batch-32 NHWC convolutions in fp16 and fp32
#             (--evict-mib 256: cold weights, as inside a model) and the 4096^3 GEMM in fp16
#   waves     the cooperative-matrix tilings against the planner on the grids of 39-196
#             workgroups (the wave rule's sweep, docs/PERFORMANCE.md)
#   stem      ResNet's batch-32 stem (K = 147) on the cooperative-matrix tilings against the
#             stem kernel, in fp16
#   ncnn      ncnn's benchncnn (Vulkan, fp16, batch 1), when packed
# A plan that fails is reported and the others still run; the exit status counts the failures.
# Environment: ITERATIONS (default 30) for models and compare.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PACK="$ROOT/bench/out/device"
OUT=${OUT:?run.sh runs on the device tool, which sets OUT}
ITERATIONS=${ITERATIONS:-30}
[ $# -gt 0 ] || { echo "usage: bash bench/device/run.sh PLAN... (see its header)" >&2; exit 2; }
[ -d "$PACK/bin" ] || { echo "run.sh: $PACK is missing: run bench/device/pack.sh here and carry it" >&2; exit 2; }

# The Vulkan loader (the machine has the NVIDIA driver and ICD, no loader).
if ! ldconfig -p | grep -q 'libvulkan.so.1 '; then
  ls "$ROOT"/.gl/*.deb > /dev/null 2>&1 || { echo "run.sh: no loader on this machine and no .gl carried" >&2; exit 2; }
  for f in "$ROOT"/.gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$icd}

work=$(mktemp -d)
for f in "$PACK"/bin/*.xz; do xz -dc "$f" > "$work/$(basename "$f" .xz)"; done
chmod +x "$work"/*
mkdir -p "$work/programs"
for f in "$PACK"/programs/*.uvk.xz; do
  [ -e "$f" ] && xz -dc "$f" > "$work/programs/$(basename "$f" .xz)"
done
[ -f "$PACK/programs/workloads.json" ] && cp "$PACK/programs/workloads.json" "$work/programs/"
programs=()
for f in "$work"/programs/*.uvk; do [ -e "$f" ] && programs+=("$(basename "$f" .uvk)"); done

plan_check() { "$work/kernels_test"; }

plan_models() {
  local p precision
  for p in "${programs[@]}"; do
    for precision in fp16 fp32; do
      echo "== $p precision=$precision"
      "$work/univk-bench" "$work/programs/$p.uvk" --mode fused --iterations "$ITERATIONS" --warmup 5 \
        --option precision="$precision" || return 1
    done
  done
}

plan_compare() {
  local batch32=() others=() p
  for p in "${programs[@]}"; do
    case "$p" in *_b32*) batch32+=("$p") ;; *) others+=("$p") ;; esac
  done
  local common=(--bench "$work/univk-bench" --workloads "$work/programs/workloads.json"
    --iterations "$ITERATIONS" --warmup 5)
  if [ ${#batch32[@]} -gt 0 ]; then
    python3 "$ROOT/bench/compare_pytorch.py" "${common[@]}" --out "$work/compare32" --only "${batch32[@]}" \
      --bench-args "--option precision=fp16" || return 1
    cat "$work/compare32/table.md"
    cp "$work/compare32/results.json" "$OUT/compare.json"
  fi
  if [ ${#others[@]} -gt 0 ]; then
    python3 "$ROOT/bench/compare_pytorch.py" "${common[@]}" --out "$work/compare1" --only "${others[@]}" || return 1
    cat "$work/compare1/table.md"
    cp "$work/compare1/results.json" "$OUT/compare-fp32.json"
  fi
}

plan_kernels() {
  local kb="$work/univk-kernel-bench"
  "$kb" --precision fp16 --only b32_nhwc --iterations 10 --evict-mib 256 &&
    "$kb" --precision fp32 --only b32_nhwc --iterations 10 --evict-mib 256 &&
    "$kb" --precision fp16 --only gemm_4096 --iterations 20
}

# The grids where counting subgroups instead of workgroups would change the planner's choice.
plan_waves() {
  local w
  for w in conv1x1_960_160_7_b32_nhwc conv1x1_384_64_14_b32_nhwc conv1x1s2_256_512_14_b32_nhwc \
    conv3x3s2_256_512_14_b32_nhwc conv1x1_2048_512_7_b32_nhwc conv3x3_512_7_b32_nhwc \
    conv3x3_128_28_b32_nhwc conv1x1_320_1280_7_b32_nhwc; do
    "$work/univk-kernel-bench" --precision fp16 --tilings --tiling-filter 8x8cv,8x4cv,4x4cv --only "$w" \
      --iterations 10 --evict-mib 256 || return 1
  done
}

plan_stem() {
  "$work/univk-kernel-bench" --precision fp16 --tilings --tiling-filter c,stem --only conv7x7s2_3_64_224_b32_nhwc \
    --iterations 10 --evict-mib 256
}

plan_ncnn() {
  [ -f "$PACK/ncnn-benchncnn.tar.xz" ] || { echo "ncnn-benchncnn.tar.xz was not packed"; return 1; }
  tar xJf "$PACK/ncnn-benchncnn.tar.xz" -C "$work"
  (cd "$work/ncnn-benchncnn" && sh run.sh 50 16 0 0 0)
}

failures=0
for plan in "$@"; do
  if ! declare -F "plan_$plan" > /dev/null; then
    echo "run.sh: unknown plan '$plan' (see the header of bench/device/run.sh)" >&2
    failures=$((failures + 1))
    continue
  fi
  echo "== $plan ($(date -u +%H:%M:%S) UTC)"
  start=$(date +%s)
  if "plan_$plan" > "$OUT/$plan.log" 2>&1; then
    echo "   passed in $(($(date +%s) - start)) s"
  else
    echo "   FAILED after $(($(date +%s) - start)) s; the end of $plan.log:"
    tail -20 "$OUT/$plan.log"
    failures=$((failures + 1))
  fi
done
rm -rf "$work"
exit "$failures"
