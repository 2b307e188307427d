#!/usr/bin/env bash
# The hardening issue's item 5 (work budgets): sends each of the heavy movement requests once
# and prints its status, time and answer size; then runs 8 clients sending the longest-running
# ones back to back (waiting the Retry-After second after a 503) for SECONDS while a ninth
# probes GET /healthz on a new connection every 20 ms, and prints the probes' latency (median,
# p99, max), the statuses the heavy clients got, and the server's peak RSS (VmHWM). Release
# build, 4 worker threads (the default).
# Usage: bench/budget.sh [seconds]   (needs curl and python3)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DTACTICS_TESTS=OFF >/dev/null
cmake --build build/release -j 2 --target tacticsd >/dev/null 2>&1
tmp=$(mktemp -d)
build/release/service/tacticsd --port 0 --db "$tmp/bench.db" 2>"$tmp/log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do grep -q '"listening"' "$tmp/log" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '"port":[0-9]*' "$tmp/log" | head -1 | cut -d: -f2)
url="http://127.0.0.1:$port"

# The request bodies (the issue's heavy requests, and two that run long within budget).
python3 - "$tmp" <<'EOF'
import json, sys
d = sys.argv[1]
def save(name, body):
    open(f"{d}/{name}.json", "w").write(json.dumps(body, separators=(",", ":")))
crowd = []
for i in range(2000):
    crowd.append({"id": f"e{i}", "x": (i * 37) % 1000, "y": (i * 7919) % 997})
big = {"width": 1000, "height": 1000}
facing = {"preset": "d20-3.5-facing"}
runner = {"x": 500, "y": 500, "speeds": {"walk": 10000}}
save("reach_facing", {"rules": facing, "map": big, "mover": dict(runner, facing=0), "mode": "run"})
save("reach_facing_fewest", {"rules": facing, "map": big, "mover": dict(runner, facing=0),
                             "mode": "run", "prefer": "fewest_attacks"})
save("fewest_2000", {"map": big, "creatures": crowd, "mover": runner, "mode": "run",
                     "prefer": "fewest_attacks"})
save("fewest_2000_facing", {"rules": facing, "map": big, "creatures": crowd,
                            "mover": dict(runner, facing=0), "mode": "run",
                            "prefer": "fewest_attacks"})
save("reach_whole_map", {"map": big, "mover": runner, "mode": "run"})
rects = [{"x": 0, "y": 0, "width": 1000, "height": 1000, "terrain": ["clear", "difficult"][i % 2]}
         for i in range(16600)]
save("rectangles_16600", {"map": dict(big, squares=rects), "mover": {"x": 0, "y": 0,
     "speeds": {"walk": 30}}, "mode": "move", "path": [{"x": 1, "y": 1}]})
save("route_nowhere", {"map": dict(big, squares=[{"x": 997, "y": 0, "width": 1, "height": 1000,
                                                  "terrain": "blocked"}]),
                       "mover": {"x": 0, "y": 0, "speeds": {"walk": 30}}, "mode": "move",
                       "target": {"x": 999, "y": 999}})
EOF

post() { # path file -> "status seconds bytes"
  curl -s -o "$tmp/answer" -w '%{http_code} %{time_total} %{size_download}' -X POST "$url$1" \
    -H 'Content-Type: application/json' --data-binary @"$tmp/$2.json"
}
echo "one at a time (status, seconds, answer bytes, body bytes):"
for r in reach:reach_facing reach:reach_facing_fewest reach:fewest_2000 reach:fewest_2000_facing \
         reach:reach_whole_map path:rectangles_16600 route:route_nowhere; do
  printf '  %-22s %s %s\n' "${r#*:}" "$(post "/v1/movement/${r%%:*}" "${r#*:}")" \
    "$(wc -c <"$tmp/${r#*:}.json")"
done

echo "8 heavy clients for ${secs} s, /healthz probed every 20 ms on a new connection:"
end=$(($(date +%s) + secs))
for i in $(seq 8); do
  (
    while [ "$(date +%s)" -lt "$end" ]; do
      if [ $((i % 2)) -eq 0 ]; then a=$(post /v1/movement/route route_nowhere); else
        a=$(post /v1/movement/reach fewest_2000); fi
      echo "${a%% *}"
      [ "${a%% *}" != 503 ] || sleep 1 # as Retry-After asks
    done >"$tmp/heavy.$i"
  ) &
done
sleep 0.2
while [ "$(date +%s)" -lt "$end" ]; do
  curl -s -o /dev/null -w '%{time_total}\n' "$url/healthz" >>"$tmp/probes"
  sleep 0.02
done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
sort -n "$tmp/probes" | awk '{v[NR] = $1} END {
  p99 = int(NR * 0.99); if (p99 < 1) p99 = 1
  printf "  healthz: %d probes, median %.1f ms, p99 %.1f ms, max %.1f ms\n", NR,
         1000 * v[int((NR + 1) / 2)], 1000 * v[p99], 1000 * v[NR] }'
cat "$tmp"/heavy.* | grep . | sort | uniq -c | awk '{printf "  heavy answers: %s x %s\n", $1, $2}'
echo "  server peak RSS: $(grep VmHWM /proc/$pid/status | awk '{print $2, $3}')"
