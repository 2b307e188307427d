#!/usr/bin/env bash
# Issue 5's target: under wrk -t2 -c64, POST /v1/attacks/resolve must reach at least 80% of
# GET /healthz's requests/s on the same server in the same run, with median latency under
# 1 ms. Prints both figures and the ratio. Usage: bench/attack_vs_healthz.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
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
h=$(run "http://127.0.0.1:$port/healthz")
a=$(run -s "$tmp/attack.lua" "http://127.0.0.1:$port/v1/attacks/resolve")
hr=$(awk '/Requests\/sec/ {print $2}' <<<"$h")
ar=$(awk '/Requests\/sec/ {print $2}' <<<"$a")
am=$(awk '$1 == "50%" {print $2}' <<<"$a")
non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$a")
echo "healthz          ${hr} requests/s"
echo "attacks/resolve  ${ar} requests/s, median ${am}${non2xx:+, non-2xx ${non2xx}}"
awk -v a="$ar" -v h="$hr" 'BEGIN { printf "ratio            %.2f (target >= 0.80)\n", a / h }'
