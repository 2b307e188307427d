#!/usr/bin/env bash
# Issue 20's live feed figures: 1,000 subscribers on one encounter held by one process
# (bench/stream_bench.c, epoll), 20 facing writes a second; the time from each write's 2xx to
# the last subscriber's receipt (p50, p99), the server's RSS with the subscribers, and writes
# per second closed-loop with and without them: one burst each, and 9 alternating pairs of 1 s
# slices writing to an encounter nobody listens to and to the one they listen to (the ratio of
# each pair, whose two slices see nearly the same machine); deliveries per second and the
# server's CPU per delivery (issue 33).
#   bench/stream.sh [subscribers=1000] [writes/s=20] [seconds=10] [burst seconds=5]
# The connection limits are raised here, for this run only (the defaults keep feeds to 512).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
make build >/dev/null
ulimit -n 8192
tmp=$(mktemp -d)
build/release/service/tacticsd --port 0 --db "$tmp/bench.db" --threads 4 \
  --max-connections $((n + 100)) --per-ip-connections $((n + 100)) \
  --max-subscribers "$n" --max-subscribers-per-encounter "$n" --max-subscribers-per-address "$n" \
  2>/dev/null >/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
# The access log goes to /dev/null (a line per write and per feed); the port is read from /proc.
for _ in $(seq 100); do
  port=$(ss -Hltnp 2>/dev/null | grep "pid=$pid," | grep -o '127.0.0.1:[0-9]*' | cut -d: -f2 | head -1 || true)
  [ -n "${port:-}" ] && break
  sleep 0.05
done
build/release/bench/stream_bench "$port" "$pid" "$n" "${2:-20}" "${3:-10}" "${4:-5}"
