#!/usr/bin/env bash
# The encounter figures of this build against another build's tacticsd, in the same run: the
# bench's two servers (bench/encounter_bench.c: one encounter, then 100 at once, each figure
# the median of paired slices beside the plain C loop) are this tree's and OTHER's, both with
# group commit on, so that "first/second" is this build's rate over the other's in alternating
# slices, on the same disk at the same moment (the disk's syncs move every figure a lot on a
# shared machine). Run it again with SWAP=1 (the other build first) to cancel the slot's bias.
# Each server's group commit counters from /metrics close the run: the largest batch among them.
# Usage: bench/encounters_ab.sh OTHER_TACTICSD [seconds]   (THREADS=N: worker threads, default 4)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
other=$(realpath "${1:?usage: bench/encounters_ab.sh OTHER_TACTICSD [seconds]}")
make build >/dev/null
this=build/release/service/tacticsd
a=this b=other
if [ -n "${SWAP:-}" ]; then t=$this; this=$other; other=$t; a=other b=this; fi
tmp=$(mktemp -d)
threads=${THREADS:-4}
"$this" --port 0 --db "$tmp/a.db" --threads "$threads" --group-commit on 2>"$tmp/log_a" &
pid=$!
"$other" --port 0 --db "$tmp/b.db" --threads "$threads" --group-commit on 2>"$tmp/log_b" &
pid_b=$!
trap 'kill $pid $pid_b 2>/dev/null || true; wait $pid $pid_b 2>/dev/null || true; rm -rf "$tmp"' EXIT
port=$(bench_port_of "$tmp/log_a")
port_b=$(bench_port_of "$tmp/log_b")
echo "$threads worker threads each; first: $a build, second: $b build"
ON_NAME=$a OFF_NAME=$b SERVER_PID=$pid build/release/bench/encounter_bench "$port" "$port_b" "$tmp" \
  "${2:-5}" | grep -v '^replay'
for p in "$port" "$port_b"; do
  if [ "$p" = "$port" ]; then n=$a; else n=$b; fi
  echo "$n build: $(curl -s "http://127.0.0.1:$p/metrics" |
    grep -E '^tactics_group_commits?_(total|writes_total|largest) ' | tr '\n' ' ')"
done
