#!/usr/bin/env bash
# package_subproject_test: univk added with add_subdirectory to an application that sets no
# build type and no C++ standard. The application's cache keeps its own (empty) build type,
# univk builds no tests or tools, and the application's source is compiled with C++20 and
# univk's public include paths only. (Building would compile all of univk: install_test.sh
# builds and runs the same consumer against the installed package.)
#   subproject_test.sh <univk source dir>
set -euo pipefail
SOURCE_DIR=$1
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cmake -S "$HERE/consumer" -B "$TMP" -G Ninja -DUNIVK_SOURCE_DIR="$SOURCE_DIR" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  >"$TMP/configure.log" || { cat "$TMP/configure.log"; exit 1; }
cache() { sed -n "s/^$1:[A-Z]*=//p" "$TMP/CMakeCache.txt"; }
[ -z "$(cache CMAKE_BUILD_TYPE)" ] || { echo "univk set the parent's CMAKE_BUILD_TYPE" >&2; exit 1; }
for option in UNIVK_BUILD_TESTS UNIVK_BUILD_TOOLS UNIVK_BUILD_PYTHON UNIVK_BUILD_BENCHMARKS; do
  [ "$(cache $option)" = OFF ] || { echo "$option is not OFF in a subproject" >&2; exit 1; }
done

# The application's compile command, as configured (building it would compile all of univk's
# shaders first).
compile=$(grep '"command".*consumer/main.cc' "$TMP/compile_commands.json")
grep -q -- "-std=c++20\|-std=gnu++20" <<<"$compile" || { echo "no C++20 flag: $compile" >&2; exit 1; }
includes=$(grep -o -- '-I[^ ]*\|-isystem [^ ]*' <<<"$compile" | sort -u)
expected=$(printf -- '-I%s\n' "$SOURCE_DIR/include" "$TMP/univk/include" | sort -u)
[ "$includes" = "$expected" ] || { printf 'include path:\n%s\nexpected:\n%s\n' "$includes" "$expected" >&2; exit 1; }
echo "package_subproject_test: passed"
