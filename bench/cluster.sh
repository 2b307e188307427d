#!/usr/bin/env bash
# Issue 21's 30 s run of the cluster test (tests/cluster/test_cluster.sh, 10 s in CTest):
# scripts/cluster (PostgreSQL, two tacticsd, HAProxy), 8 clients writing to 8 shared encounters
# through the balancer, undisturbed and with one instance SIGKILLed mid-stream; every log is
# checked (0 lost, 0 doubled, contiguous, verify ok). Usage: bench/cluster.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
exec tests/cluster/test_cluster.sh "$PWD/build/release/service/tacticsd" \
  "$PWD/build/release/bench/cluster_load" "${1:-30}"
