#!/usr/bin/env bash
# Crash safety: 10,000 acknowledged writes (or WRITES) to one encounter while tacticsd is killed
# with SIGKILL at random moments; after each kill PRAGMA integrity_check must pass and, after
# each restart, every acknowledged event must be there and verify (bench/crash_bench.c).
# Usage: bench/crash.sh [writes]
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/release/bench/crash_bench build/release/service/tacticsd "$tmp" "${1:-10000}"
