#!/usr/bin/env bash
# The instructions the server runs a request, which unlike its rate or its CPU time
# do not move with the neighbours' load: tacticsd (Release) under valgrind's callgrind, /healthz
# then the attack of bench/attack_vs_healthz.sh sent by wrk for SECONDS each, the counters
# zeroed before and dumped after each, their totals (every thread: libmicrohttpd, the kernel's
# share excluded) over the requests answered. Given an older build's tacticsd, it is measured
# the same way after this one. ATTACK=hit sends bench/attack_hit.lua's attack (it hits and rolls
# its damage) instead. Usage: [ATTACK=hit] bench/attack_instructions.sh [seconds=4] [OLDER_TACTICSD]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-4}
older=${2:-}
command -v valgrind >/dev/null || { echo "bench: install valgrind (scripts/install-deps.sh)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "bench: install wrk (scripts/install-deps.sh)" >&2; exit 2; }
make build >/dev/null
tmp=$(mktemp -d)
vpid=
trap '[ -z "$vpid" ] || kill "$vpid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"' EXIT
cp "bench/attack${ATTACK:+_$ATTACK}.lua" "$tmp/attack.lua"
# Instructions a request for /healthz and the attack on the build $1 (its label $2).
measure() {
  local bin=$1 who=$2 port
  rm -f "$tmp"/cg.* "$tmp"/db*
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" "$bin" --port 0 --db "$tmp/db" \
    2>"$tmp/log" &
  vpid=$!
  for _ in $(seq 300); do grep -q '"listening"' "$tmp/log" 2>/dev/null && break; sleep 0.1; done
  port=$(grep -o '"port":[0-9]*' "$tmp/log" | head -1 | cut -d: -f2)
  wrk -t1 -c1 -d2s "http://127.0.0.1:$port/healthz" >/dev/null # warm
  local h=0 a=0
  for ep in healthz attack; do
    callgrind_control -z "$vpid" &>/dev/null
    if [ "$ep" = healthz ]; then
      n=$(wrk -t1 -c4 -d"${secs}s" "http://127.0.0.1:$port/healthz" | awk '/requests in/ {print $1}')
    else
      n=$(wrk -t1 -c4 -d"${secs}s" -s "$tmp/attack.lua" "http://127.0.0.1:$port/v1/attacks/resolve" |
        awk '/requests in/ {print $1}')
    fi
    callgrind_control -d "$ep" "$vpid" &>/dev/null
    local f
    for _ in $(seq 50); do
      f=$(grep -l "^desc: Trigger: dump $ep" "$tmp"/cg.* 2>/dev/null | head -1 || true)
      [ -n "$f" ] && break
      sleep 0.1
    done
    local ir
    ir=$(awk '/^summary:/ {print $2}' "$f")
    local per=$((ir / n))
    echo "$who $ep: $per instructions a request ($n requests)"
    if [ "$ep" = healthz ]; then h=$per; else a=$per; fi
  done
  kill "$vpid" 2>/dev/null || true
  wait "$vpid" 2>/dev/null || true
  vpid=
  echo "$who attack - healthz: $((a - h)) instructions a request"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
measure build/release/service/tacticsd "this build ($(git rev-parse --short HEAD)):"
[ -z "$older" ] || measure "$older" "older build:"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
