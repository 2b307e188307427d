#!/usr/bin/env bash
# Baseline throughput: wrk -t2 -c64 -d10s against GET /healthz on a Release build.
# Later benchmarks report their figures as ratios against this, measured in the same run.
# Usage: bench/healthz.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
. bench/lib.sh
trap bench_stop EXIT
bench_start
wrk -t2 -c64 -d"${secs}s" "http://127.0.0.1:$port/healthz"
