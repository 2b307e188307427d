#!/usr/bin/env bash
# Issue 5's target: under wrk -t2 -c64, POST /v1/attacks/resolve must reach at least 80% of
# GET /healthz's requests/s on the same server in the same run, with median latency under
# 1 ms. Prints both figures and the ratio.
#
# This VM's CPU comes and goes (steal), so one healthz run followed by one attack run measured
# the drift between them as much as the server: the same build gave 0.56 to 0.82. The two now
# alternate in short slices, each pair in the other order from the last (healthz first, then
# attack first, ...), and the ratio is the median of the pairs' ratios; every pair is printed.
# Usage: bench/attack_vs_healthz.sh [seconds per slice] [pairs]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3}
pairs=${2:-9}
. bench/lib.sh
trap bench_stop EXIT
bench_start
cat >"$tmp/attack.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"rules":{"preset":"d20-3.5-facing"},"attacker":{"x":5,"y":6,"facing":0,' ..
  '"attack_bonus":5,"sneak_attack_dice":2,"damage":"1d6+1"},"defender":{"x":5,"y":5,' ..
  '"facing":0,"defense":{"armor":4,"dex":2},"damage_reduction":2},' ..
  '"allies":[{"x":4,"y":5}],"cover":"quarter","concealment":["quarter"],"seed":7}'
LUA
run() { wrk -t2 -c64 -d"${secs}s" --latency "$@" 2>&1; }
healthz() { run "http://127.0.0.1:$port/healthz"; }
attack() { run -s "$tmp/attack.lua" "http://127.0.0.1:$port/v1/attacks/resolve"; }
rate() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
# wrk prints the median as e.g. 812.00us or 1.45ms: in ms.
median_ms() { awk '$1 == "50%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
                  print (u == "us" ? v / 1000 : u == "s" ? v * 1000 : v) }' <<<"$1"; }
non2xx=0
: >"$tmp/pairs"
for i in $(seq "$pairs"); do
  if ((i % 2)); then h=$(healthz); a=$(attack); else a=$(attack); h=$(healthz); fi
  n=$(awk '/Non-2xx/ {print $NF}' <<<"$a")
  non2xx=$((non2xx + ${n:-0}))
  echo "$(rate "$h") $(rate "$a") $(median_ms "$h") $(median_ms "$a")" >>"$tmp/pairs"
  awk -v i="$i" '{ printf "pair %2d: healthz %9.0f/s median %5.2f ms, attacks/resolve %9.0f/s median %5.2f ms, ratio %.2f\n",
                   i, $1, $3, $2, $4, $2 / $1 }' <(tail -1 "$tmp/pairs")
done
# Medians over the pairs (the middle pair, or the mean of the two middle ones).
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
hr=$(awk '{print $1}' "$tmp/pairs" | med)
ar=$(awk '{print $2}' "$tmp/pairs" | med)
hm=$(awk '{print $3}' "$tmp/pairs" | med)
am=$(awk '{print $4}' "$tmp/pairs" | med)
ratio=$(awk '{print $2 / $1}' "$tmp/pairs" | med)
low=$(awk '{print $2 / $1}' "$tmp/pairs" | sort -g | head -1)
high=$(awk '{print $2 / $1}' "$tmp/pairs" | sort -g | tail -1)
echo "healthz          ${hr} requests/s (median of ${pairs} slices of ${secs} s), median latency ${hm} ms"
echo "attacks/resolve  ${ar} requests/s, median latency ${am} ms${non2xx:+, non-2xx ${non2xx}}"
awk -v r="$ratio" -v l="$low" -v h="$high" \
  'BEGIN { printf "ratio            %.2f, median of the pairs (lowest %.2f, highest %.2f; target >= 0.80)\n", r, l, h }'
# wrk keeps 64 requests in flight, so by Little's law the median latency is about 64 / rate:
# below 1 ms needs 64,000 requests/s, whatever the handler does.
awk -v h="$hr" 'BEGIN { printf "64 connections at healthz'"'"'s rate hold each request %.2f ms on average (Little'"'"'s law)\n", 64000 / h }'
