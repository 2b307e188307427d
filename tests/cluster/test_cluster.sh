#!/usr/bin/env bash
# Issue 21's test through the balancer (scripts/cluster: PostgreSQL, two tacticsd, HAProxy):
# several clients write to the same encounters, spread over both instances, then every log
# is checked (bench/cluster_load.c: no event lost or doubled, numbers contiguous, verify ok).
# Twice: undisturbed, then with instance 1 killed by SIGKILL mid-stream.
# Usage: test_cluster.sh TACTICSD CLUSTER_LOAD [SECONDS]   (CTest gives 10 s; bench/cluster.sh 30)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export TACTICSD=$1
load=$2
seconds=${3:-10}
dir=$(mktemp -d "${TMPDIR:-/tmp}/tactics-cluster-test.XXXXXX")
# Three ports (the balancer's and the two instances'), none in use, and below the kernel's
# ephemeral range, which every server started with --port 0 and every client socket draws on.
low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
while :; do
  port=$((10000 + RANDOM % (low - 10003)))
  in_use "$port" || in_use $((port + 1)) || in_use $((port + 2)) || break
done
trap '"$root/scripts/cluster" stop "$dir"' EXIT
"$root/scripts/cluster" start "$dir" "$port"

echo "== both instances up"
"$load" "$port" "$seconds" 8 8

echo "== instance 1 killed by SIGKILL mid-stream"
# Killed once it has answered 20 more writes in this run (mid-stream, whatever the machine's
# load), not at a time.
actions() { grep -c '"path":"/v1/encounters/[a-z0-9]*/actions"' "$dir/tacticsd1.log" || true; }
before=$(actions)
"$load" "$port" "$seconds" 8 8 &
loader=$!
while [ "$(actions)" -lt $((before + 20)) ] && kill -0 "$loader" 2>/dev/null; do sleep 0.05; done
[ "$(actions)" -ge $((before + 20)) ] || {
  echo "test_cluster: the load ended before instance 1 answered 20 writes" >&2
  exit 1
}
"$root/scripts/cluster" kill "$dir" 1
wait "$loader"
# Both instances served writes in the first run (HAProxy's round robin): show it.
for n in 1 2; do
  echo "instance $n answered $(grep -c '"path":"/v1/encounters/[a-z0-9]*/actions"' "$dir/tacticsd$n.log") actions"
done
echo "test_cluster: ok"
