#!/usr/bin/env bash
# package_python_install_test: `pip install` of the univk Python package into a new venv
# (with --system-site-packages for Debian's torch and numpy, --no-build-isolation and
# --no-index: no package index is needed), then python_package_test.py against the installed
# copy. The extension comes from this build folder (UNIVK_CMAKE_BUILD_DIR, see setup.py), so the
# test does not compile univk a second time; the package is built from a copy of the files
# `pip install .` reads, so the test writes nothing into the checkout.
#   python_install_test.sh <univk source dir> <univk build dir> <python>
set -euo pipefail
SOURCE_DIR=$1
BUILD_DIR=$2
PYTHON=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$PYTHON" -m venv --system-site-packages "$TMP/venv"
mkdir -p "$TMP/src/python"
cp "$SOURCE_DIR"/{pyproject.toml,setup.py,VERSION,README.md} "$TMP/src/"
cp -r "$SOURCE_DIR/python/univk" "$TMP/src/python/"
UNIVK_CMAKE_BUILD_DIR=$BUILD_DIR "$TMP/venv/bin/python" -m pip install --quiet --no-build-isolation --no-index \
  --disable-pip-version-check "$TMP/src"
cd "$TMP"
PYTHONPATH= UNIVK_SOURCE_DIR=$SOURCE_DIR "$TMP/venv/bin/python" "$SOURCE_DIR/tests/package/python_package_test.py" -v
