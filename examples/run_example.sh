#!/usr/bin/env bash
# The example run by `./run.sh example` (as `bash examples/run_example.sh <build_dir>`).
# For now: univk-devices lists the Vulkan devices, creates the shared device with two leases
# and runs one verified compute dispatch. Exits with its status.
set -euo pipefail
BUILD_DIR=${1:?usage: bash examples/run_example.sh <build_dir>}

DEVICES_TOOL="$BUILD_DIR/tools/univk_devices/univk-devices"
if [ ! -x "$DEVICES_TOOL" ]; then
  echo "run_example.sh: $DEVICES_TOOL not found (build with UNIVK_BUILD_TOOLS=ON)" >&2
  exit 1
fi
echo "== univk-devices: Vulkan devices, one shared device, one verified dispatch"
"$DEVICES_TOOL"
