#!/usr/bin/env bash
# Issue 19's figures over HTTP: under wrk -t2 -c2 (a search takes one of half the workers
# places, 2 of the default 4: more connections would get 503 busy), POST /v1/render (the 50 x 50 board of
# bench/render_board.json, 20 creatures, every overlay, PNG) beside GET /healthz and beside
# POST /v1/movement/reach of the same map, creatures and mover, on the same server in the same
# run. As in attack_vs_healthz.sh the three alternate in short slices, each round in another
# order, and the figures are medians over the rounds. Then the in-process figures
# (build/release/bench/render_bench). Usage: bench/render.sh [seconds per slice] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3}
rounds=${2:-5}
. bench/lib.sh
trap bench_stop EXIT
bench_start
cmake --build build/release --target render_bench >/dev/null
build/release/bench/render_bench --reach-body bench/render_board.json >"$tmp/reach.json"
lua() { # a wrk script POSTing the file $1 as JSON
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
  printf 'local f = io.open("%s"); wrk.body = f:read("*a"); f:close()\n' "$1"
}
lua "$PWD/bench/render_board.json" >"$tmp/render.lua"
lua "$tmp/reach.json" >"$tmp/reach.lua"
run() { wrk -t2 -c2 -d"${secs}s" --latency "$@" 2>&1; }
healthz() { run "http://127.0.0.1:$port/healthz"; }
render() { run -s "$tmp/render.lua" "http://127.0.0.1:$port/v1/render"; }
reach() { run -s "$tmp/reach.lua" "http://127.0.0.1:$port/v1/movement/reach"; }
rate() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
median_ms() { awk '$1 == "50%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
                  print (u == "us" ? v / 1000 : u == "s" ? v * 1000 : v) }' <<<"$1"; }
non2xx() { awk '/Non-2xx/ {print $NF}' <<<"$1"; }
: >"$tmp/rounds"
for i in $(seq "$rounds"); do
  case $((i % 3)) in
    1) h=$(healthz); r=$(render); m=$(reach) ;;
    2) r=$(render); m=$(reach); h=$(healthz) ;;
    0) m=$(reach); h=$(healthz); r=$(render) ;;
  esac
  bad=$(( $(non2xx "$r" || echo 0) + 0 ))
  [ "$bad" -eq 0 ] || { echo "render: $bad non-2xx answers" >&2; exit 1; }
  echo "$(rate "$h") $(median_ms "$h") $(rate "$r") $(median_ms "$r") $(rate "$m") $(median_ms "$m")" >>"$tmp/rounds"
  awk -v i="$i" '{ printf "round %d: healthz %8.0f/s %6.2f ms, render %7.0f/s %6.2f ms, reach %8.0f/s %6.2f ms\n",
                   i, $1, $2, $3, $4, $5, $6 }' <(tail -1 "$tmp/rounds")
done
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '{print $c}' "$tmp/rounds" | med; }
echo "healthz          $(col 1) requests/s, median latency $(col 2) ms (median of $rounds slices of $secs s)"
echo "render (PNG)     $(col 3) requests/s, median latency $(col 4) ms"
echo "movement/reach   $(col 5) requests/s, median latency $(col 6) ms"
echo "in process:"
build/release/bench/render_bench bench/render_board.json
