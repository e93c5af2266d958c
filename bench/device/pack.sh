#!/usr/bin/env bash
# Packs, here, what one call of the device tool needs to measure univk on its GPU machine, which
# has PyTorch but no Vulkan loader, no univk build and no network (docs/PERFORMANCE.md, "On the
# device tool"). Writes into bench/out/device (git-ignored):
#   bin/*.xz                 univk-bench, univk-kernel-bench and kernels_test of BUILD_DIR,
#                            stripped and compressed
#   programs/*.uvk.xz        the programs of --programs, exported with the models' random weights
#                            rounded to 3 mantissa bits (so that they compress about 4x; timing
#                            does not depend on the values)
#   programs/workloads.json  their entries, without the weights files: PyTorch times its own
#                            random weights there (bench/compare_pytorch.py)
#   ncnn-benchncnn.tar.xz    from ../shared/third_party, when it is there
# and the Vulkan loader's Debian packages (libvulkan1, the libglvnd family) into .gl/.
#
#   bash bench/device/pack.sh [--build-dir DIR] [--programs NAME...]
#
# BUILD_DIR (default build) must hold the three binaries and the univk Python module (the
# default configuration builds them all). Default programs: the batch-32 models
# (resnet18_b32 mobilenet_v2_b32 resnet50_b32: 44 MB compressed, 55 MiB with the rest and the
# working tree); the device tool carries at most 64 MiB, checked at the end. Then, for the
# device tool's `run`:
#   carry   [".gl", "bench/out/device"]
#   command bash bench/device/run.sh PLAN...      (bench/device/run.sh lists the plans)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR="$ROOT/build"
PROGRAMS=(resnet18_b32 mobilenet_v2_b32 resnet50_b32)
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD_DIR=$(cd "${2:?--build-dir needs a folder}" && pwd); shift 2 ;;
    --programs) shift; PROGRAMS=(); while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do PROGRAMS+=("$1"); shift; done ;;
    *) echo "pack.sh: unknown option '$1' (see the header of bench/device/pack.sh)" >&2; exit 2 ;;
  esac
done
[ ${#PROGRAMS[@]} -gt 0 ] || { echo "pack.sh: --programs needs at least one workload name (bench/workloads.py)" >&2; exit 2; }
PACK="$ROOT/bench/out/device"
CARRY_LIMIT_MIB=64

binaries=("$BUILD_DIR/tools/univk_bench/univk-bench" "$BUILD_DIR/tools/univk_bench/univk-kernel-bench"
  "$BUILD_DIR/tests/kernels/kernels_test")
for b in "${binaries[@]}"; do
  [ -x "$b" ] || { echo "pack.sh: $b is missing: build BUILD_DIR's default targets first" >&2; exit 1; }
done

rm -rf "$PACK"
mkdir -p "$PACK/bin" "$PACK/programs"
for b in "${binaries[@]}"; do
  strip -o "$PACK/bin/$(basename "$b")" "$b"
done
xz -T0 -6 "$PACK"/bin/*

# Which build and tree the measurements come from (run.sh prints it there).
echo "$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo ' with uncommitted changes'), packed $(date -u +%Y-%m-%dT%H:%MZ)" > "$PACK/REVISION"

# Export into a scratch folder, removed at the end: only the compressed programs travel (the
# weights files export_workloads.py writes beside them are not needed there: PyTorch times
# its own random weights).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
/usr/bin/python3 "$ROOT/bench/export_workloads.py" --build-dir "$BUILD_DIR" --out "$scratch" \
  --mantissa-bits 3 --only "${PROGRAMS[@]}"
for p in "${PROGRAMS[@]}"; do
  xz -T0 -3 -c "$scratch/$p.uvk" > "$PACK/programs/$p.uvk.xz"
done
/usr/bin/python3 - "$scratch/workloads.json" "$PACK/programs/workloads.json" <<'EOF'
import json, sys
with open(sys.argv[1]) as f:
    doc = json.load(f)
for w in doc["workloads"]:
    w.pop("weights", None)
with open(sys.argv[2], "w") as f:
    json.dump(doc, f, indent=1)
EOF

ncnn="$ROOT/../shared/third_party/ncnn-benchncnn.tar.xz"
if [ -f "$ncnn" ]; then
  cp "$ncnn" "$PACK/"
else
  echo "pack.sh: $ncnn is absent: the ncnn plan will not run there"
fi

# The loader packages, as the device tool's README says (amd64 lists in a folder of their own).
if ! ls "$ROOT"/.gl/libvulkan1_*.deb > /dev/null 2>&1; then
  mkdir -p "$ROOT/.gl" /tmp/univk-amd64-lists/partial
  apt_opts=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/univk-amd64-lists)
  apt-get "${apt_opts[@]}" update -qq
  (cd "$ROOT/.gl" && apt-get "${apt_opts[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi

# The working tree travels too: its tracked files and the untracked ones git does not ignore.
# (stat, not du: a tracked file deleted in the tree is skipped, not an error.)
tree_kib=$(git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
  (cd "$ROOT" && xargs -0 stat -c %s 2> /dev/null || true) | awk '{s += $1} END {print int(s / 1024)}')
total_kib=$(du -sk "$PACK" "$ROOT/.gl" | awk -v tree="$tree_kib" '{s += $1} END {print s + tree}')
echo "pack.sh: bench/out/device, .gl and the working tree hold $((total_kib / 1024)) MiB" \
  "(the device tool carries at most $CARRY_LIMIT_MIB MiB in all)"
du -ah "$PACK" | sort -k2
if [ "$total_kib" -gt $((CARRY_LIMIT_MIB * 1024)) ]; then
  echo "pack.sh: too large to carry with the working tree: pack fewer --programs" >&2
  exit 1
fi
