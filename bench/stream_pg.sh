#!/usr/bin/env bash
# Issue 21's live feed across instances: two tacticsd (A and B) on one throwaway PostgreSQL
# (scripts/pg), subscribers on B, writes through A (bench/stream_bench.c with SUB_PORT): the time
# from each write's 2xx on A to the last subscriber's receipt on B (p50, p99), first with B's
# PostgreSQL listener (LISTEN/NOTIFY, the default), then with B's 1 s poll of the database only
# (--feed-listen off), on the same database in the same run.
#   bench/stream_pg.sh [subscribers=100] [writes/s=20] [seconds=10] [burst seconds=2]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100}
rate=${2:-20}
secs=${3:-10}
burst=${4:-2}
if [ -z "${NO_BUILD:-}" ]; then make build >/dev/null; fi
ulimit -n 8192
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  scripts/pg stop "$tmp/pg" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
scripts/pg start "$tmp/pg" >/dev/null
export PGHOST=$tmp/pg PGUSER=postgres
limits=(--max-connections $((n + 100)) --per-ip-connections $((n + 100)) --max-subscribers "$n"
  --max-subscribers-per-encounter "$n")

# Starts tacticsd with its log in $tmp/$1.log; sets pid and port.
start() {
  local name=$1
  shift
  build/release/service/tacticsd --port 0 --db postgresql:///tactics --threads 4 "${limits[@]}" \
    "$@" 2>"$tmp/$name.log" >/dev/null &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 200); do grep -q '"listening"' "$tmp/$name.log" 2>/dev/null && break; sleep 0.05; done
  port=$(grep -o '"port":[0-9]*' "$tmp/$name.log" | head -1 | cut -d: -f2)
}

start a
a_port=$port
for mode in on off; do
  start "b-$mode" --feed-listen "$mode"
  b_pid=$pid
  if [ "$mode" = on ]; then
    for _ in $(seq 100); do grep -q feed_listener_up "$tmp/b-$mode.log" && break; sleep 0.05; done
  fi
  echo "== B with --feed-listen $mode"
  SUB_PORT=$port build/release/bench/stream_bench "$a_port" "$b_pid" "$n" "$rate" "$secs" "$burst" ||
    echo "(some subscriber did not get every event in time: see above)"
  kill "$b_pid"
  wait "$b_pid" 2>/dev/null || true
done
