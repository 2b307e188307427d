#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, non-recoverable) in build/fuzz and runs
# each for SECONDS (default 20) from the seed corpus in fuzz/corpus/<target>. Any crash,
# sanitizer report or timeout fails it. The timeout (one input's wall-clock time, which is all
# libFuzzer offers) is 25 s: every input takes under 1 s here (stat::slowest_unit_time_sec 0),
# and a loaded machine can stretch that several times over; an input that loops is still caught. The test suite runs the short smoke; for a long run:
#   fuzz/smoke.sh 3600
# New corpus entries go to a temporary folder; crashing inputs are kept in build/fuzz/crashes.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DTACTICS_FUZZ=ON \
  -DTACTICS_SANITIZE=ON -DTACTICS_TESTS=OFF >/dev/null
cmake --build build/fuzz -j "$(nproc)" --target fuzz_dice fuzz_requests fuzz_encounters fuzz_import >/dev/null
mkdir -p build/fuzz/crashes
status=0
for target in fuzz_dice fuzz_requests fuzz_encounters fuzz_import; do
  work=$(mktemp -d)
  cp fuzz/corpus/"${target#fuzz_}"/* "$work"/ 2>/dev/null || true
  if ! build/fuzz/fuzz/"$target" "$work" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
      -artifact_prefix=build/fuzz/crashes/"$target"- -print_final_stats=1 >"$work.log" 2>&1; then
    echo "fuzz: $target FAILED" >&2
    tail -n 40 "$work.log" >&2
    status=1
  else
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work.log" | grep -o '[0-9]*$')
    echo "fuzz: $target: ${runs:-?} inputs in ${secs} s, no crash"
  fi
  rm -rf "$work" "$work.log"
done
exit $status
