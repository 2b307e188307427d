#!/usr/bin/env bash
# Records openapi/examples.json, the real request and answer shown for every operation in the
# bundled contract and docs page: builds the service suite in BUILD_DIR, runs it twice (each
# run records every exchange, tests/CMakeLists.txt), and keeps per operation one exchange that
# both runs recorded identically (tools/pick-examples.mjs). Then run tools/regenerate.sh and
# commit examples.json with openapi/dist/. Takes the service suite's time twice (2-4 min).
#   openapi/tools/record-examples.sh build/asan
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR (a configured CMake build tree, e.g. build/asan)" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
runs=$(mktemp -d "${TMPDIR:-/tmp}/examples.XXXXXX")
trap 'rm -rf "$runs"' EXIT
cmake --build "$build" -j2 --target test_service tacticsd list_routes >"$runs/build.log" ||
  { cat "$runs/build.log" >&2; exit 1; }
for i in 1 2; do
  # ctest adds exchanges_reset, the fixture that clears the log, before the suite.
  if ! (cd "$build" && ctest -R '^service$' --output-on-failure >"$runs/ctest.$i.log" 2>&1); then
    cat "$runs/ctest.$i.log" >&2
    exit 1
  fi
  cp "$build/exchanges.jsonl" "$runs/$i.jsonl"
done
node "$here/tools/pick-examples.mjs" "$here/openapi.yaml" "$here/examples.json" "$runs/1.jsonl" "$runs/2.jsonl"
