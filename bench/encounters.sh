#!/usr/bin/env bash
# Issue 8's encounter figures: attack actions appended over HTTP (one encounter; 100 at once)
# beside a plain C loop of the same SQLite transactions in the same run, and the replay of a
# 10,000-event encounter (bench/encounter_bench.c). Usage: bench/encounters.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
make build >/dev/null
tmp=$(mktemp -d)
build/release/service/tacticsd --port 0 --db "$tmp/bench.db" --threads 4 2>"$tmp/log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do grep -q '"listening"' "$tmp/log" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '"port":[0-9]*' "$tmp/log" | head -1 | cut -d: -f2)
build/release/bench/encounter_bench "$port" "$tmp" "${1:-5}"
