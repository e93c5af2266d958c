#!/usr/bin/env bash
# The example run by `./run.sh example` (as `bash examples/run_example.sh <build_dir>`).
# First univk-devices lists the Vulkan devices, creates the shared device with two leases and
# runs one verified compute dispatch; then the mixed VGF/Vulkan example is exported from
# PyTorch, run and checked (see the end of this file). Exits non-zero on any failure.
set -euo pipefail
BUILD_DIR=${1:?usage: bash examples/run_example.sh <build_dir>}

DEVICES_TOOL="$BUILD_DIR/tools/univk_devices/univk-devices"
if [ ! -x "$DEVICES_TOOL" ]; then
  echo "run_example.sh: $DEVICES_TOOL not found (build with UNIVK_BUILD_TOOLS=ON)" >&2
  exit 1
fi
echo "== univk-devices: Vulkan devices, one shared device, one verified dispatch"
"$DEVICES_TOOL"

# The mixed VGF/Vulkan example (examples/vgf_vulkan_shared/README.md): export from PyTorch,
# run with univk-run in both execution modes, and check the JSON report.
RUN_TOOL="$BUILD_DIR/tools/univk_run/univk-run"
EXAMPLE="$(cd "$(dirname "$0")" && pwd)/vgf_vulkan_shared"
OUT="$BUILD_DIR/example_vgf_vulkan_shared"
PYTHON=/usr/bin/python3
if [ ! -x "$RUN_TOOL" ] || [ ! -d "$BUILD_DIR/python/univk" ]; then
  echo "run_example.sh: univk-run or the univk Python module is missing in $BUILD_DIR" >&2
  exit 1
fi
echo
echo "== export.py: PyTorch model -> $OUT/model.uvk"
PYTHONPATH="$BUILD_DIR/python" "$PYTHON" "$EXAMPLE/export.py" --out-dir "$OUT"
for mode in fused per_delegate; do
  echo
  echo "== univk-run ($mode mode)"
  "$RUN_TOOL" "$OUT/model.uvk" --mode "$mode" --input "$OUT/input.npy" --reference "$OUT/expected.npy" \
    --atol 1e-5 --rtol 1e-5 --require-no-cpu-fallback --output-dir "$OUT/out_$mode" \
    --json "$OUT/report_$mode.json"
  "$PYTHON" "$EXAMPLE/check_report.py" "$OUT/report_$mode.json"
done
