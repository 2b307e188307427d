#!/usr/bin/env bash
# Baseline throughput: wrk -t2 -c64 -d10s against GET /healthz on a Release build.
# Later benchmarks report their figures as ratios against this, measured in the same run.
# Usage: bench/healthz.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
command -v wrk >/dev/null || { echo "bench: install wrk (apt-get install wrk)" >&2; exit 2; }
make build >/dev/null
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
build/release/service/tacticsd --port 0 --db "$tmp/bench.db" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do grep -q '"listening"' "$tmp/log" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '"port":[0-9]*' "$tmp/log" | head -1 | cut -d: -f2)
wrk -t2 -c64 -d"${secs}s" "http://127.0.0.1:$port/healthz"
