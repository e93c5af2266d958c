#!/usr/bin/env bash
# package_install_test: `cmake --install` of this build into a temporary prefix, then an
# application built against it with find_package(univk) and with pkg-config, run on a program
# from make_program and checked against the CPU reference's values.
#   install_test.sh <univk build dir> <make_program executable>
set -euo pipefail
BUILD_DIR=$1
MAKE_PROGRAM=$2
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix

step() { echo "== $*"; }

step "cmake --install into $PREFIX"
cmake --install "$BUILD_DIR" --prefix "$PREFIX" >/dev/null
# Headers live under include/univk only: nothing from src/ or generated build folders.
unexpected=$(cd "$PREFIX/include" && find . -type f ! -path './univk/*')
if [ -n "$unexpected" ]; then
  echo "files outside include/univk: $unexpected" >&2
  exit 1
fi
for f in include/univk/config.h include/univk/runtime/program.h include/univk/npy/npy.h lib/cmake/univk/univkConfig.cmake \
  lib/cmake/univk/univkConfigVersion.cmake lib/pkgconfig/univk.pc; do
  [ -f "$PREFIX/$f" ] || { echo "missing $f" >&2; exit 1; }
done

step "make_program: the program and its expected output"
"$MAKE_PROGRAM" "$TMP/model.uvk" "$TMP/values.txt"

step "find_package(univk): configure, build and run the consumer"
cmake -S "$HERE/consumer" -B "$TMP/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$TMP/configure.log" || { cat "$TMP/configure.log"; exit 1; }
grep "univk 0" "$TMP/configure.log"
cmake --build "$TMP/cmake-build"
# C++20 comes from univk::univk's usage requirements, and the prefix's include folder is the
# consumer's whole include path (no source or build folder of univk).
compile=$(grep '"command"' "$TMP/cmake-build/compile_commands.json")
grep -q -- "-std=c++20\|-std=gnu++20" <<<"$compile" || { echo "no C++20 flag: $compile" >&2; exit 1; }
includes=$(grep -o -- '-I[^ ]*\|-isystem [^ ]*' <<<"$compile" | sort -u)
[ "$includes" = "-isystem $PREFIX/include" ] || [ "$includes" = "-I$PREFIX/include" ] ||
  { printf 'consumer include path, expected only %s:\n%s\n' "$PREFIX/include" "$includes" >&2; exit 1; }
"$TMP/cmake-build/consumer" "$TMP/model.uvk" "$TMP/values.txt" "$TMP/input.npy"

step "find_package(univk) with a component this install does not have fails"
mkdir -p "$TMP/missing"
cat >"$TMP/missing/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(missing LANGUAGES CXX)
find_package(univk CONFIG REQUIRED COMPONENTS no_such_backend)
CMAKE
if cmake -S "$TMP/missing" -B "$TMP/missing/build" -DCMAKE_PREFIX_PATH="$PREFIX" >"$TMP/missing.log" 2>&1; then
  echo "find_package accepted a missing component" >&2
  exit 1
fi
grep -q "no_such_backend" "$TMP/missing.log"

step "pkg-config univk: build and run the consumer"
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
[ "$(pkg-config --modversion univk)" = "$(grep -o '"[0-9.]*"' "$PREFIX/include/univk/config.h" | tr -d '"')" ]
# shellcheck disable=SC2046  # pkg-config prints separate words
c++ -std=c++20 $(pkg-config --cflags univk) "$HERE/consumer/main.cc" -o "$TMP/consumer-pc" $(pkg-config --libs univk)
"$TMP/consumer-pc" "$TMP/model.uvk" "$TMP/values.txt" "$TMP/input-pc.npy"
echo "package_install_test: passed"
