#!/usr/bin/env bash
# Issue 21's scale-out figure: 100 clients writing to 100 encounters through the balancer of
# scripts/cluster (two tacticsd on one PostgreSQL, HAProxy round robin) against the same clients
# on one of the two instances directly, alternated in every round of bench/encounter_bench.c,
# beside the db layer's libpq loop on that PostgreSQL; then the 10,000-event replay (through the
# balancer). On one machine the two instances share its cores with PostgreSQL, HAProxy and the
# clients: this measures what the second instance and the extra hop cost or give here, not what
# two machines would give. Usage: bench/cluster_scale.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
dir=$(mktemp -d "${TMPDIR:-/tmp}/tactics-scale.XXXXXX")
port=$((20000 + RANDOM % 20000))
trap 'scripts/cluster stop "$dir" >/dev/null 2>&1 || true' EXIT
scripts/cluster start "$dir" "$port"
export PGHOST=$dir/pg PGUSER=postgres
PLAIN_DB=postgresql:///tactics ON_NAME="2 instances (balancer)" OFF_NAME="1 instance (direct)" \
  build/release/bench/encounter_bench "$port" $((port + 1)) "$dir" "${1:-5}"
