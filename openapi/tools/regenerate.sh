#!/usr/bin/env bash
# Regenerates the two files built from openapi.yaml and checked in under openapi/dist/, which
# the C build embeds as they are (so building tacticsd needs no Node.js): the bundled contract
# (openapi.json, served at GET /openapi.json) and the offline reference page (docs.html, served
# at GET /docs). Needs Node.js and openapi/node_modules (scripts/install-deps.sh installs both).
#   openapi/tools/regenerate.sh          # rewrites openapi/dist/ (commit the result)
#   openapi/tools/regenerate.sh --check  # fails when openapi/dist/ is stale (a CTest test)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/dist
check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  out=$(mktemp -d "${TMPDIR:-/tmp}/openapi-dist.XXXXXX")
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
node "$here/tools/bundle.mjs" "$here/openapi.yaml" "$out/openapi.json"
# The page is built from the bundle, so it shows the examples recorded from the tests too.
node "$here/tools/build-docs.mjs" "$out/openapi.json" "$out/docs.html" >/dev/null
if [ "$check" -eq 1 ]; then
  stale=0
  for f in openapi.json docs.html; do
    if ! cmp -s "$out/$f" "$here/dist/$f"; then
      echo "openapi/dist/$f is stale: run openapi/tools/regenerate.sh and commit it" >&2
      stale=1
    fi
  done
  exit "$stale"
fi
