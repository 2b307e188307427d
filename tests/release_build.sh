#!/usr/bin/env bash
# Quick start's first command builds the Release configuration (make build), whose optimiser
# finds warnings the Debug build of the tests cannot (maybe-uninitialized, with -Werror): build
# it too, in its own tree, with the test suites (the test odds_diff runs from there), and fail
# on any warning or error.
# Usage: release_build.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
out=$2
log=$out.log
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Release -DTACTICS_TESTS=ON >"$log" 2>&1
if ! cmake --build "$out" -j2 >>"$log" 2>&1; then
  cat "$log" >&2
  echo "release_build: the Release build failed" >&2
  exit 1
fi
if grep -n "warning:" "$log" >&2; then
  echo "release_build: the Release build has warnings" >&2
  exit 1
fi
echo "release_build: Release builds without a warning"
