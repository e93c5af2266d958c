#!/usr/bin/env bash
# Runs univk's GPU measurements on the device tool's machine, from what bench/device/pack.sh
# packed here (carry [".gl", "bench/out/device"]); the repository root is the working folder.
#
#   bash bench/device/run.sh PLAN...
#
# Plans, in the order given, each writing $OUT/PLAN.log (the device tool brings back at most 8
# files from $OUT: 7 plans and compare.json at most per call):
#   check     kernels_test, every case (the cooperative-matrix ones need a GPU that has them)
#   models    univk-bench --mode fused on every packed program, precision=fp16 and fp32
#   compare   bench/compare_pytorch.py on every packed program: PyTorch (its defaults: fp32 with
#             TF32 convolutions) eager and torch.compile in the same run as univk, which runs
#             the batch-32 float programs with precision=fp16, the others with its default
#             (fp32); the merged results.json as $OUT/compare.json. Fails where univk failed.
#   kernels   univk-kernel-bench: the floors, the batch-32 NHWC convolutions in fp16 and fp32
#             (--evict-mib 256: cold weights, as inside a model) and the 4096^3 GEMM in fp16
#   waves     the cooperative-matrix tilings on vectorised loads (8x8cv, 8x4cv, 4x4cv: 8 and 16
#             subgroups per tile) against the planner on the grids where counting subgroups
#             instead of workgroups in its wave rule would change its choice (docs/PERFORMANCE.md)
#   stem      ResNet's batch-32 stem (K = 147) on every cooperative-matrix tiling against the
#             stem kernel, in fp16
#   ncnn      ncnn's benchncnn (Vulkan, fp16, batch 1), when packed
# A failing step is reported and the others still run. Every command stops at DEADLINE seconds
# after the start (default 570: the device tool kills a command at 600 and then returns nothing
# of its output), so a call always returns its logs. Exit status: the number of failed plans, or
# 100 when the machine or the pack is not usable. Environment: ITERATIONS (default 30) for
# models and compare, DEADLINE.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PACK="$ROOT/bench/out/device"
OUT=${OUT:?run.sh runs on the device tool, which sets OUT}
ITERATIONS=${ITERATIONS:-30}
DEADLINE=${DEADLINE:-570}
START=$(date +%s)
export PYTHONUNBUFFERED=1  # a plan cut off keeps PyTorch's lines in its log
setup_error() { echo "run.sh: $*" >&2; exit 100; }
[ $# -gt 0 ] || { echo "usage: bash bench/device/run.sh PLAN... (see its header)" >&2; exit 100; }
[ -d "$PACK/bin" ] || setup_error "$PACK is missing: run bench/device/pack.sh here and carry it"

# The Vulkan loader (the machine has the NVIDIA driver and its ICD, not the loader; the other
# packages pack.sh brings are the EGL/GL half of libglvnd, which the driver's libraries link).
has_loader() { grep -q 'libvulkan\.so\.1 ' <<< "$(ldconfig -p)"; }
if ! has_loader; then
  ls "$ROOT"/.gl/libvulkan1_*.deb > /dev/null 2>&1 || setup_error "no Vulkan loader here and no .gl/libvulkan1_*.deb carried"
  for f in "$ROOT"/.gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  has_loader || setup_error "libvulkan.so.1 is still missing after unpacking .gl"
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=${VK_DRIVER_FILES:-$icd}
echo "pack: $(cat "$PACK/REVISION" 2> /dev/null || echo 'no REVISION')"
command -v nvidia-smi > /dev/null && nvidia-smi -L

work=$(mktemp -d)
for f in "$PACK"/bin/*.xz; do xz -dc "$f" > "$work/$(basename "$f" .xz)" && chmod +x "$work/$(basename "$f" .xz)"; done
mkdir -p "$work/programs"
programs=()
for f in "$PACK"/programs/*.uvk.xz; do
  [ -e "$f" ] || continue
  p=$(basename "$f" .uvk.xz)
  xz -dc "$f" > "$work/programs/$p.uvk" && programs+=("$p")
done
[ -f "$PACK/programs/workloads.json" ] && cp "$PACK/programs/workloads.json" "$work/programs/"

# Runs a command, killed once the call's DEADLINE has passed (status 124 then).
limited() {
  local left=$((START + DEADLINE - $(date +%s)))
  if [ "$left" -le 0 ]; then
    echo "run.sh: DEADLINE reached, not run: $*"
    return 124
  fi
  timeout --kill-after=5 "$left" "$@"
  local status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "run.sh: stopped at DEADLINE ($DEADLINE s after the start): $*"
  fi
  return "$status"
}

# shellcheck disable=SC2317  # the plan_ functions are called by name, from the arguments
plan_check() { limited "$work/kernels_test"; }

plan_models() {
  [ ${#programs[@]} -gt 0 ] || { echo "no programs were packed"; return 1; }
  local p precision failed=0
  for p in "${programs[@]}"; do
    for precision in fp16 fp32; do
      echo "== $p precision=$precision"
      limited "$work/univk-bench" "$work/programs/$p.uvk" --mode fused --iterations "$ITERATIONS" --warmup 5 \
        --option precision="$precision" || failed=1
    done
  done
  return "$failed"
}

plan_compare() {
  [ ${#programs[@]} -gt 0 ] || { echo "no programs were packed"; return 1; }
  local fp16=() default=() p failed=0
  for p in "${programs[@]}"; do
    case "$p" in q*) default+=("$p") ;; *_b32*) fp16+=("$p") ;; *) default+=("$p") ;; esac
  done
  local common=(--bench "$work/univk-bench" --workloads "$work/programs/workloads.json"
    --iterations "$ITERATIONS" --warmup 5)
  local results=()
  if [ ${#fp16[@]} -gt 0 ]; then
    limited python3 "$ROOT/bench/compare_pytorch.py" "${common[@]}" --out "$work/compare_fp16" --only "${fp16[@]}" \
      --bench-args "--option precision=fp16" || failed=1
    results+=("$work/compare_fp16")
  fi
  if [ ${#default[@]} -gt 0 ]; then
    limited python3 "$ROOT/bench/compare_pytorch.py" "${common[@]}" --out "$work/compare_default" \
      --only "${default[@]}" || failed=1
    results+=("$work/compare_default")
  fi
  # One file back: the finished results, or what a run cut off had measured (partial.json).
  local jsons=() r
  for r in "${results[@]}"; do
    if [ -f "$r/results.json" ]; then jsons+=("$r/results.json"); elif [ -f "$r/partial.json" ]; then jsons+=("$r/partial.json"); fi
  done
  [ ${#jsons[@]} -gt 0 ] || return 1
  python3 "$ROOT/bench/compare_pytorch.py" --render "${jsons[@]}" --out "$work/compare" > /dev/null || return 1
  cp "$work/compare/results.json" "$OUT/compare.json"
  # compare_pytorch.py records univk's failures in the rows and exits 0.
  python3 - "$work/compare/results.json" <<'EOF' || failed=1
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
bad = [(r["name"], k, v) for r in rows for k, v in r["errors"].items() if k in ("fused", "per_delegate", "export")]
for name, what, msg in bad:
    print(f"univk failed: {name} ({what}): {msg}")
sys.exit(1 if bad else 0)
EOF
  return "$failed"
}

plan_kernels() {
  local kb="$work/univk-kernel-bench" failed=0
  limited "$kb" --precision fp16 --only b32_nhwc --iterations 10 --evict-mib 256 || failed=1
  limited "$kb" --precision fp32 --only b32_nhwc --iterations 10 --evict-mib 256 || failed=1
  limited "$kb" --precision fp16 --only gemm_4096 --iterations 20 || failed=1
  return "$failed"
}

plan_waves() {
  local w failed=0
  for w in conv1x1_960_160_7_b32_nhwc conv1x1_384_64_14_b32_nhwc conv1x1s2_256_512_14_b32_nhwc \
    conv3x3s2_256_512_14_b32_nhwc conv1x1_2048_512_7_b32_nhwc conv3x3_512_7_b32_nhwc \
    conv3x3_128_28_b32_nhwc conv1x1_320_1280_7_b32_nhwc; do
    limited "$work/univk-kernel-bench" --precision fp16 --tilings --tiling-filter 8x8cv,8x4cv,4x4cv --only "$w" \
      --iterations 10 --evict-mib 256 || failed=1
  done
  return "$failed"
}

plan_stem() {
  # "c" matches every cooperative-matrix tiling label (".../8x8c", ".../8x8cv"), "stem" the
  # stem kernel's.
  limited "$work/univk-kernel-bench" --precision fp16 --tilings --tiling-filter c,stem \
    --only conv7x7s2_3_64_224_b32_nhwc --iterations 10 --evict-mib 256
}

plan_ncnn() {
  [ -f "$PACK/ncnn-benchncnn.tar.xz" ] || { echo "ncnn-benchncnn.tar.xz was not packed"; return 1; }
  tar xJf "$PACK/ncnn-benchncnn.tar.xz" -C "$work" || return 1
  (cd "$work/ncnn-benchncnn" && limited sh run.sh 50 16 0 0 0)
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
