#!/usr/bin/env bash
# Issue 21/22's PostgreSQL figures: bench/encounter_bench.c against one tacticsd on a throwaway
# PostgreSQL (scripts/pg, default settings: synchronous_commit=on, commit_delay=0), beside the
# same db layer's plain loop on that PostgreSQL (libpq, one transaction per write), with p50/p99
# latency and the replay of 10,000 events; then PostgreSQL's own count of commits against WAL
# syncs over the run (pg_stat_wal, pg_stat_database): more than one commit a sync is its group
# commit at work. Usage: bench/encounters_pg.sh [seconds]   (THREADS=N, default 4)
set -euo pipefail
cd "$(dirname "$0")/.."
make build >/dev/null
tmp=$(mktemp -d)
threads=${THREADS:-4}
pid=
trap '[ -n "$pid" ] && { kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }; scripts/pg stop "$tmp/pg" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
scripts/pg start "$tmp/pg" >/dev/null
export PGHOST=$tmp/pg PGUSER=postgres
build/release/service/tacticsd --port 0 --db postgresql:///tactics --threads "$threads" \
  2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do grep -q '"listening"' "$tmp/log" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '"port":[0-9]*' "$tmp/log" | head -1 | cut -d: -f2)
q() { psql -qAt -d tactics -c "$1"; }
echo "$(q 'select version()' | cut -d' ' -f1-2), commit_delay $(q 'show commit_delay'), synchronous_commit $(q 'show synchronous_commit'); $threads worker threads"
q "select pg_stat_reset_shared('wal')" >/dev/null
c0=$(q "select xact_commit from pg_stat_database where datname = 'tactics'")
PLAIN_DB=postgresql:///tactics build/release/bench/encounter_bench "$port" 0 "$tmp" "${1:-5}"
c1=$(q "select xact_commit from pg_stat_database where datname = 'tactics'")
syncs=$(q 'select wal_sync from pg_stat_wal')
echo "PostgreSQL over the run: $((c1 - c0)) commits (reads included), $syncs WAL syncs"
