#!/usr/bin/env bash
# Crash safety: 10,000 acknowledged writes (or WRITES) by WRITERS clients (default 1) to
# ENCOUNTERS encounters (default one per writer) while tacticsd is killed with SIGKILL at random
# moments; after each kill PRAGMA integrity_check must pass and, after each restart, every
# acknowledged event must be there and verify; at the end every log is contiguous and no version
# was acknowledged twice (bench/crash_bench.c). Several writers exercise group commit.
# Usage: bench/crash.sh [writes [writers [encounters]]]
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/release/bench/crash_bench build/release/service/tacticsd "$tmp" "${1:-10000}" "${2:-1}" ${3:+"$3"}
