#!/usr/bin/env bash
# Issues 8 and 22's encounter figures: attack actions appended over HTTP (one encounter; 100 at
# once) to a tacticsd with group commit on and to one with it off (each on its own file), beside
# a plain C loop of the same SQLite transactions (one per write) in the same run, with p50/p99
# write latency; and the replay of a 10,000-event encounter (bench/encounter_bench.c).
# Usage: bench/encounters.sh [seconds]   (THREADS=N: the servers' worker threads, default 4)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
make build >/dev/null
tmp=$(mktemp -d)
threads=${THREADS:-4}
build/release/service/tacticsd --port 0 --db "$tmp/on.db" --threads "$threads" \
  --group-commit on 2>"$tmp/log_on" &
pid=$!
build/release/service/tacticsd --port 0 --db "$tmp/off.db" --threads "$threads" \
  --group-commit off 2>"$tmp/log_off" &
pid_off=$!
trap 'kill $pid $pid_off 2>/dev/null || true; wait $pid $pid_off 2>/dev/null || true; rm -rf "$tmp"' EXIT
port=$(bench_port_of "$tmp/log_on")
port_off=$(bench_port_of "$tmp/log_off")
echo "SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo '?'), $threads worker threads each"
SERVER_PID=$pid build/release/bench/encounter_bench "$port" "$port_off" "$tmp" "${1:-5}"
