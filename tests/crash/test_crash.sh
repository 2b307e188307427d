#!/usr/bin/env bash
# Issue 22's durability proof for group commit: several clients write to several encounters of
# one tacticsd (SQLite, group commit on, 8 worker threads) while it is killed by SIGKILL at random
# moments and restarted on the same file; after every restart every acknowledged event must be
# there, and at the end each log must be contiguous, with no version acknowledged twice, and
# verify (bench/crash_bench.c). 8 writers on 6 encounters: two pairs race (412s). Then the same
# with one writer, as bench/crash.sh has always run it.
# Usage: test_crash.sh TACTICSD CRASH_BENCH [WRITES]
set -euo pipefail
tacticsd=$1
bench=$2
writes=${3:-3000}
dir=$(mktemp -d "${TMPDIR:-/tmp}/tactics-crash-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "== 8 writers, 6 encounters, group commit on"
"$bench" "$tacticsd" "$dir" "$writes" 8 6 -- --threads 8 --group-commit on
rm -rf "${dir:?}"/*
echo "== 1 writer"
"$bench" "$tacticsd" "$dir" "$((writes / 3))" 1
echo "test_crash: ok"
