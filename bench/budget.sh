#!/usr/bin/env bash
# The hardening issues' costs (issue 28, "Costs no request may buy"; issue 5's work budgets),
# measured on Release builds of this tree and of an older commit (BASE, default cf69a19, the
# tree before issue 28), side by side:
#  1. the cost model's calibration (bench/cost_bench: ns per unit of each budget, this build);
#  2. the issue's probes, one at a time on each server (bench/budget_probes.py): the status,
#     the server's CPU time for the probe (its threads' run time from /proc/PID/task/*/
#     schedstat), its peak resident memory above what it held before (VmHWM, reset through
#     /proc/PID/clear_refs), and the slowest GET /healthz meanwhile (asked every 20 ms on a new
#     connection); then the ratio of CPU before / after;
#  3. 8 clients sending the longest-running searches back to back (waiting the Retry-After
#     second after a 503) for SECONDS while a ninth asks /healthz every 20 ms: the probes'
#     latency (median, p99, max), the statuses, and the server's peak RSS (this build).
# 4 worker threads (the default). The load average is printed before and after: the machine
# is shared, and the CPU times (not wall times) are what compare.
# Usage: bench/budget.sh [seconds] [base-commit]   (needs curl and python3; SECTIONS=13 runs
# only sections 1 and 3, PROBES=REGEX only the probes it finds)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
base=${2:-cf69a19}
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DTACTICS_TESTS=OFF >/dev/null
cmake --build build/release -j 2 --target tacticsd cost_bench >/dev/null 2>&1
basedir=build/base-$base
if [ ! -x "$basedir/build/service/tacticsd" ]; then
  rm -rf "$basedir"
  mkdir -p "$basedir/src"
  git archive "$base" | tar -x -C "$basedir/src"
  cmake -S "$basedir/src" -B "$basedir/build" -DCMAKE_BUILD_TYPE=Release -DTACTICS_TESTS=OFF \
    >/dev/null
  cmake --build "$basedir/build" -j 2 --target tacticsd >/dev/null 2>&1
fi
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || { kill $pid 2>/dev/null; wait $pid 2>/dev/null; } || true; rm -rf "$tmp"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

sections=${SECTIONS:-123}
if [[ $sections == *1* ]]; then
  echo "== 1. cost per unit of each budget (this build, thread CPU time) =="
  build/release/bench/cost_bench 5
fi

if [[ $sections == *2* ]]; then
echo "== 2. the issue's probes: $base (before) and this build (after) =="
python3 bench/budget_probes.py "$basedir/build/service/tacticsd" >"$tmp/before.json" 2>/dev/null
python3 bench/budget_probes.py build/release/service/tacticsd >"$tmp/after.json" 2>/dev/null
python3 - "$tmp/before.json" "$tmp/after.json" <<'EOF'
import json, sys
def rows(path):
    return {r["probe"]: r for r in map(json.loads, open(path)) if r}
before, after = rows(sys.argv[1]), rows(sys.argv[2])
names = list(before) + [n for n in after if n not in before]
def cell(r):
    if r is None:
        return f"{'-':>14} {'':>8} {'':>9} {'':>9}"
    return (f"{r['status'][:14]:>14} {r['cpu_s']:7.3f}s {r['peak_mb']:+8.1f}M "
            f"{r['healthz_max_ms']:7.1f}ms")
print(f"  {'probe':44} {'before: status':>14} {'cpu':>8} {'peak':>9} {'healthz':>9}   "
      f"{'after: status':>14} {'cpu':>8} {'peak':>9} {'healthz':>9}  cpu ratio")
for n in names:
    b, a = before.get(n), after.get(n)
    ratio = f"{b['cpu_s'] / max(a['cpu_s'], 0.001):6.0f}x" if b and a else ""
    print(f"  {n[:44]:44} {cell(b)}   {cell(a)}  {ratio}")
worst = max(after.values(), key=lambda r: r["cpu_s"])
print(f"  after: most CPU {worst['cpu_s']:.3f} s ({worst['probe']}), most memory "
      f"{max(r['peak_mb'] for r in after.values()):+.1f} MB, slowest /healthz "
      f"{max(r['healthz_max_ms'] for r in after.values()):.1f} ms")
EOF
echo "load average after the probes: $(cut -d' ' -f1-3 /proc/loadavg)"
fi

# 3. 8 heavy clients against the tacticsd given, for SECONDS.
heavy() {
  local bin=$1 d="$tmp/heavy-$2"
  mkdir -p "$d"
  "$bin" --port 0 --db "$d/bench.db" 2>"$d/log" &
  pid=$!
  for _ in $(seq 100); do grep -q '"listening"' "$d/log" 2>/dev/null && break; sleep 0.05; done
  local port url end
  port=$(grep -o '"port":[0-9]*' "$d/log" | head -1 | cut -d: -f2)
  url="http://127.0.0.1:$port"
  post() { # path file -> "status seconds bytes"
    curl -s -o /dev/null -w '%{http_code} %{time_total} %{size_download}' -X POST "$url$1" \
      -H 'Content-Type: application/json' --data-binary @"$tmp/$2.json"
  }
  end=$(($(date +%s) + secs))
  for i in $(seq 8); do
    (
      while [ "$(date +%s)" -lt "$end" ]; do
        if [ $((i % 2)) -eq 0 ]; then a=$(post /v1/movement/route route_nowhere); else
          a=$(post /v1/movement/reach fewest_2000); fi
        echo "${a%% *}"
        [ "${a%% *}" != 503 ] || sleep 1 # as Retry-After asks
      done >"$d/heavy.$i"
    ) &
  done
  sleep 0.2
  while [ "$(date +%s)" -lt "$end" ]; do
    curl -s -o /dev/null -w '%{time_total}\n' "$url/healthz" >>"$d/probes"
    sleep 0.02
  done
  wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
  sort -n "$d/probes" | awk '{v[NR] = $1} END {
    p99 = int(NR * 0.99); if (p99 < 1) p99 = 1
    printf "  healthz: %d probes, median %.1f ms, p99 %.1f ms, max %.1f ms\n", NR,
           1000 * v[int((NR + 1) / 2)], 1000 * v[p99], 1000 * v[NR] }'
  cat "$d"/heavy.* | grep . | sort | uniq -c | awk '{printf "  heavy answers: %s x %s\n", $1, $2}'
  echo "  server peak RSS: $(grep VmHWM /proc/$pid/status | awk '{print $2, $3}')"
  kill $pid
  wait $pid 2>/dev/null || true
  pid=
}
python3 - "$tmp" <<'EOF'
import json, sys
d = sys.argv[1]
def save(name, body):
    open(f"{d}/{name}.json", "w").write(json.dumps(body, separators=(",", ":")))
crowd = [{"id": f"e{i}", "x": (i * 37) % 1000, "y": (i * 7919) % 997} for i in range(2000)]
big = {"width": 1000, "height": 1000}
save("fewest_2000", {"map": big, "creatures": crowd, "mover": {"x": 500, "y": 500,
     "speeds": {"walk": 10000}}, "mode": "run", "prefer": "fewest_attacks"})
save("route_nowhere", {"map": dict(big, squares=[{"x": 997, "y": 0, "width": 1, "height": 1000,
                                                  "terrain": "blocked"}]),
                       "mover": {"x": 0, "y": 0, "speeds": {"walk": 30}}, "mode": "move",
                       "target": {"x": 999, "y": 999}})
EOF
if [[ $sections == *3* ]]; then
  echo "== 3. 8 heavy clients for ${secs} s, /healthz every 20 ms: $base (before) =="
  heavy "$basedir/build/service/tacticsd" before
  echo "== 3. the same, this build (after) =="
  heavy build/release/service/tacticsd after
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
