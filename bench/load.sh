#!/usr/bin/env bash
# Issue 9's load figure: wrk at 256 connections for SECONDS (default 60) mixing every stateless
# endpoint family with encounter writes (bench/load.lua), printing socket errors, 5xx, p50 and
# p99, and the server's RSS at the start, middle and end. Usage: bench/load.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
. bench/lib.sh
trap bench_stop EXIT
bench_start
# One encounter a wrk thread, each with a combatant "a" whose facing the writes change.
for t in 1 2; do
  r=$(curl -s -X POST "http://127.0.0.1:$port/v1/encounters" -H 'Content-Type: application/json' \
        -d '{"map":{"width":10,"height":10}}')
  id=$(sed -E 's/.*"id":"([0-9a-f]+)".*/\1/' <<<"$r")
  token=$(sed -E 's/.*"token":"([0-9a-f]+)".*/\1/' <<<"$r")
  curl -s -o /dev/null -X POST "http://127.0.0.1:$port/v1/encounters/$id/combatants" \
    -H 'Content-Type: application/json' -H "Authorization: Bearer $token" -H 'If-Match: "v1"' \
    -d '{"id":"a","side":"p","x":1,"y":1,"speeds":{"walk":30},"defense":{},"max_hp":10,"dex":10}'
  export "ENC_ID_$t=$id" "ENC_TOKEN_$t=$token"
done
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$pid/status"; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(rss)
( sleep $((secs / 2)); rss >"$tmp/rss_mid" ) &
sampler=$!
wrk -t2 -c256 -d"${secs}s" -s bench/load.lua "http://127.0.0.1:$port" >"$tmp/wrk.txt" 2>&1
end=$(rss)
wait "$sampler"
grep -E 'Requests/sec|LOAD' "$tmp/wrk.txt"
echo "RSS start $start, middle $(cat "$tmp/rss_mid"), end $end"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
