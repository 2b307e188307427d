#!/usr/bin/env bash
# Issue 6's and 22's movement figures: reach and route on 1,000 x 1,000 maps
# (bench/movement_bench.c) beside their floors (a plain Dijkstra and a plain A*, same process)
# and PathFinding.js A* (the peer, npm "pathfinding", run by node on the same maps right after).
# Prints every time and the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
if [ ! -d bench/peer/node_modules/pathfinding ]; then
  (cd bench/peer && npm ci --silent --no-audit --no-fund)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/release/bench/movement_bench "$tmp/map" | tee "$tmp/c.txt" | grep -v '^ROUTE_MS'
node bench/peer/astar.mjs "$tmp/map-bench.txt" "$tmp/map-maze.txt" | tee "$tmp/peer.txt" |
  grep -v '^PEER_MS'
for map in bench maze; do
  route=$(awk -v m="$map" '$1 == "ROUTE_MS" && $2 == m {print $3}' "$tmp/c.txt")
  peer=$(awk -v m="$map" '$1 == "PEER_MS" && $2 == m {print $3}' "$tmp/peer.txt")
  awk -v m="$map" -v r="$route" -v p="$peer" -v node="$(node --version)" \
    'BEGIN { printf "route vs PathFinding.js (Node %s), %s: %.1fx faster (target >= 5x)\n",
             node, m, p / r }'
done
