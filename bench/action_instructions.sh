#!/usr/bin/env bash
# The instructions the server runs for one encounter attack action, which unlike its CPU time do
# not move with the neighbours' load: tacticsd (Release) under valgrind's callgrind, counting only
# inside svc_handle_encounter_action (--toggle-collect), while a client creates an encounter with
# two combatants and sends N attack actions one after the other (POST .../actions, If-Match
# chained). The dice are the encounter's own (seeded), so single runs move by ~2k; compare runs
# of 1,000 actions. Given an older build's tacticsd, it is measured the same way after this one.
# Usage: bench/action_instructions.sh [actions=1000] [OLDER_TACTICSD]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
older=${2:-}
command -v valgrind >/dev/null || { echo "bench: install valgrind (scripts/install-deps.sh)" >&2; exit 2; }
make build >/dev/null
tmp=$(mktemp -d)
vpid=
trap '[ -z "$vpid" ] || kill "$vpid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
cat >"$tmp/client.py" <<'PY'
import http.client, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
c = http.client.HTTPConnection("127.0.0.1", port)
def req(m, p, body, h):
    c.request(m, p, body=body, headers=h)
    r = c.getresponse(); d = r.read(); return r.status, d, r
s, d, r = req("POST", "/v1/encounters", '{"map":{"width":20,"height":20}}',
              {"Content-Type": "application/json"})
import json
doc = json.loads(d); eid, tok, v = doc["id"], doc["token"], 1
a = ('{"id":"a","side":"party","x":1,"y":1,"speeds":{"walk":30},"defense":{"armor":4},'
     '"max_hp":100000,"dex":12,"attacks":[{"name":"longsword","attack_bonus":6,"damage":"1d8+3"}]}')
d2 = ('{"id":"d","side":"monsters","x":2,"y":1,"speeds":{"walk":30},'
      '"defense":{"armor":2,"dex":1},"max_hp":100000,"dex":13}')
def hdr(): return {"Authorization": "Bearer " + tok, "If-Match": '"v%d"' % v,
                   "Content-Type": "application/json"}
for b in (a, d2):
    s, d, r = req("POST", "/v1/encounters/%s/combatants" % eid, b, hdr())
    assert s == 201, d
    v = int(r.getheader("ETag").strip('"W/v'))
for _ in range(n):
    s, d, r = req("POST", "/v1/encounters/%s/actions" % eid,
                  '{"type":"attack","actor":"a","target":"d"}', hdr())
    assert s == 200, d
    v = int(r.getheader("ETag").strip('"W/v'))
PY
measure() {
  local bin=$1 who=$2 port
  rm -f "$tmp"/cg.* "$tmp"/db*
  valgrind --tool=callgrind --toggle-collect=svc_handle_encounter_action \
    --callgrind-out-file="$tmp/cg.out" "$bin" --port 0 --db "$tmp/db" 2>"$tmp/log" &
  vpid=$!
  for _ in $(seq 300); do grep -q '"listening"' "$tmp/log" 2>/dev/null && break; sleep 0.1; done
  port=$(grep -o '"port":[0-9]*' "$tmp/log" | head -1 | cut -d: -f2)
  python3 "$tmp/client.py" "$port" "$n"
  kill "$vpid"
  wait "$vpid" 2>/dev/null || true
  vpid=
  local ir
  ir=$(awk '/^summary:/ {print $2}' "$tmp/cg.out")
  echo "$who $((ir / n)) instructions an attack action ($n actions)"
}
measure build/release/service/tacticsd "this build ($(git rev-parse --short HEAD)):"
[ -z "$older" ] || measure "$older" "older build:"
