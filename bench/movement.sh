#!/usr/bin/env bash
# Issue 6's movement figures: reach and route on a 1,000 x 1,000 map (bench/movement_bench.c)
# beside a plain Dijkstra (the floor, same process) and PathFinding.js A* (the peer, npm
# "pathfinding", run by node on the same map right after). Prints every time and the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
if [ ! -d bench/peer/node_modules/pathfinding ]; then
  (cd bench/peer && npm ci --silent --no-audit --no-fund)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/release/bench/movement_bench "$tmp/map.txt" | tee "$tmp/c.txt" | grep -v '^ROUTE_MS'
node bench/peer/astar.mjs "$tmp/map.txt" | tee "$tmp/peer.txt" | grep -v '^PEER_MS'
route=$(awk '/^ROUTE_MS/ {print $2}' "$tmp/c.txt")
peer=$(awk '/^PEER_MS/ {print $2}' "$tmp/peer.txt")
awk -v r="$route" -v p="$peer" \
  'BEGIN { printf "route vs PathFinding.js: %.1fx faster (target >= 5x)\n", p / r }'
