#!/usr/bin/env bash
# Issue 20's live page: how soon a write shows on an open /play page (bench/play_live.mjs), on
# the Release build, in Debian's Chromium through tests/browser's pinned playwright-core.
#   bench/play_live.sh [writes=20]
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
scripts/install-deps.sh >/dev/null
node bench/play_live.mjs build/release/service/tacticsd "${1:-20}"
