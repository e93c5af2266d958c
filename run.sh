#!/usr/bin/env bash
# univk's entry point. `./run.sh example` runs the mixed VGF/Vulkan example end to end;
# `./run.sh test` runs every test. Both install missing Debian packages, configure and build.
#
# Other commands:  ./run.sh build [cmake options...]   configure and build into $BUILD_DIR
#                  ./run.sh format | format-check      apply / check .clang-format (clang-format 14)
#                  ./run.sh deps                       install the Debian packages only
# Environment:     BUILD_DIR (default build), CTEST_ARGS (extra ctest arguments, e.g. "-L vgf")
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build}
# Debian's torch and numpy live in /usr/bin/python3, not in a pyenv python first on PATH.
PYTHON=/usr/bin/python3
export PATH=/usr/bin:$PATH

PACKAGES=(cmake ninja-build ccache g++ clang libclang-rt-14-dev clang-format-14 pkg-config
  libvulkan-dev libvulkan-volk-dev glslc spirv-tools flatbuffers-compiler libflatbuffers-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev graphviz
  mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  python3-dev pybind11-dev python3-numpy python3-torch python3-torchvision
  python3-venv python3-pip python3-setuptools python3-wheel)

install_deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "run.sh: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  install_deps
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DPython3_EXECUTABLE=$PYTHON "$@" >/dev/null
  cmake --build "$BUILD_DIR" -j "$(nproc)"
}

# The C++ sources clang-format checks (.clang-format): everything tracked, nothing generated.
cxx_sources() { git -C "$ROOT" ls-files -z '*.cc' '*.h'; }

# Lavapipe needs a writable runtime dir for its shader cache warnings to stay quiet.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/univk-xdg-$(id -u)}
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

cmd=${1:-}
shift || true
case "$cmd" in
  deps) install_deps ;;
  build) build "$@" ;;
  test)
    build "$@"
    (cd "$BUILD_DIR" && ctest --output-on-failure -j "$(nproc)" ${CTEST_ARGS:-})
    ;;
  format)
    install_deps
    cxx_sources | (cd "$ROOT" && xargs -0 clang-format-14 -i)
    ;;
  format-check)
    install_deps
    cxx_sources | (cd "$ROOT" && xargs -0 clang-format-14 --dry-run --Werror) ||
      { echo "run.sh: sources differ from .clang-format; run ./run.sh format" >&2; exit 1; }
    ;;
  example)
    build
    exec bash "$ROOT/examples/run_example.sh" "$BUILD_DIR"
    ;;
  *)
    echo "usage: ./run.sh example | test | build [cmake options] | format | format-check | deps" >&2
    exit 2
    ;;
esac
