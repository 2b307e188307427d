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
port=$((20000 + RANDOM % 20000))
trap '"$root/scripts/cluster" stop "$dir"' EXIT
"$root/scripts/cluster" start "$dir" "$port"

echo "== both instances up"
"$load" "$port" "$seconds" 8 8

echo "== instance 1 killed by SIGKILL mid-stream"
(sleep "$(awk "BEGIN {print $seconds / 3}")" && "$root/scripts/cluster" kill "$dir" 1) &
killer=$!
"$load" "$port" "$seconds" 8 8
wait "$killer"
# Both instances served writes in the first run (HAProxy's round robin): show it.
for n in 1 2; do
  echo "instance $n answered $(grep -c '"path":"/v1/encounters/[a-z0-9]*/actions"' "$dir/tacticsd$n.log") actions"
done
echo "test_cluster: ok"
