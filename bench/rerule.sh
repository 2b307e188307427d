#!/usr/bin/env bash
# How fast an encounter's log is ruled again, against a baseline build: imports the engine 3
# migration fixture (tests/service/fixtures/encounter_v3.json, 58 events of every kind of move and
# attack) into this build's tacticsd and into BASELINE's, alternating, and times the first verify
# of each import (it re-rules every event and compares it, writing nothing) and the import itself
# (the same re-ruling plus the transaction that stores it); prints medians and ratios.
# Usage: bench/rerule.sh BASELINE_TACTICSD [rounds]   (e.g. a Release build of an older commit)
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=${1:?usage: bench/rerule.sh BASELINE_TACTICSD [rounds]}
rounds=${2:-40}
make build >/dev/null
tmp=$(mktemp -d)
build/release/service/tacticsd --port 0 --db "$tmp/now.db" 2>"$tmp/log_now" &
pid_now=$!
"$baseline" --port 0 --db "$tmp/base.db" 2>"$tmp/log_base" &
pid_base=$!
trap 'kill $pid_now $pid_base 2>/dev/null || true; wait $pid_now $pid_base 2>/dev/null || true; rm -rf "$tmp"' EXIT
port_of() {
  for _ in $(seq 100); do grep -q '"listening"' "$1" 2>/dev/null && break; sleep 0.05; done
  grep -o '"port":[0-9]*' "$1" | head -1 | cut -d: -f2
}
python3 - "$(port_of "$tmp/log_now")" "$(port_of "$tmp/log_base")" "$rounds" <<'PY'
import json, statistics, sys, time, urllib.request
now, base, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
body = open('tests/service/fixtures/encounter_v3.json', 'rb').read()
def post(port, path, data):
    req = urllib.request.Request(f'http://127.0.0.1:{port}{path}', data=data,
                                 headers={'content-type': 'application/json'}, method='POST')
    t = time.perf_counter()
    with urllib.request.urlopen(req) as r:
        doc = json.loads(r.read())
    return time.perf_counter() - t, doc
def one(port):
    t_imp, doc = post(port, '/v1/encounters/import', body)
    t_ver, v = post(port, f'/v1/encounters/{doc["id"]}/verify', None)
    assert v['ok'], v
    return t_imp, t_ver
for port in (now, base):  # warm up
    one(port)
res = {now: ([], []), base: ([], [])}
for _ in range(rounds):
    for port in (now, base):
        a, b = one(port)
        res[port][0].append(a)
        res[port][1].append(b)
events = len(json.loads(body)['events'])
med = lambda xs: statistics.median(xs) * 1000
for k, what in ((1, 'verify (re-ruling only)'), (0, 'import (re-ruling and storing)')):
    n, b = med(res[now][k]), med(res[base][k])
    print(f'{what} of {events} events, median of {rounds}: this build {n:.2f} ms, '
          f'baseline {b:.2f} ms, ratio {n / b:.2f} (below 1: faster)')
PY
