#!/bin/sh
# The arrows hold, and a call or an include against them fails (scripts/check-layers, which
# every build runs): the real tree passes; then a deliberate call from the stateless api/ into
# encounter/, one from rules/ into service/, and an include of another folder's private header
# are each planted in a copy, and each must be refused by name.
# Usage: test_layers.sh SPEC SOURCE_ROOT CC AR
set -eu
spec=$1
root=$2
cc=$3
ar=$4
check="$root/scripts/check-layers"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layers-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "test_layers: $*" >&2
  exit 1
}

"$check" "$spec" "$root" || fail "the tree itself crosses the arrows"

# A copy of layer $1's archive with one more object, compiled from C text $2; the spec copy
# points at it. Prints the new spec's path.
plant() {
  archive=$(awk -v l="$1" '$1 == "layer" && $2 == l { print $3 }' "$spec")
  [ -n "$archive" ] || fail "no layer $1 in $spec"
  printf '%s\n' "$2" >"$tmp/$1_planted.c"
  "$cc" -c -o "$tmp/$1_planted.o" "$tmp/$1_planted.c"
  cp "$archive" "$tmp/$1.a"
  "$ar" rcs "$tmp/$1.a" "$tmp/$1_planted.o"
  awk -v l="$1" -v a="$tmp/$1.a" '$1 == "layer" && $2 == l { $3 = a } { print }' "$spec" >"$tmp/$1.spec"
  echo "$tmp/$1.spec"
}

expect_refused() { # spec root pattern
  if "$check" "$1" "$2" 2>"$tmp/out"; then
    fail "a crossing was not refused: $3"
  fi
  grep -q "$3" "$tmp/out" || { cat "$tmp/out" >&2; fail "the refusal does not say: $3"; }
}

s=$(plant svc_api 'int svc_encounter_state_at(void); int planted(void) { return svc_encounter_state_at(); }')
expect_refused "$s" "$root" "svc_api (svc_api_planted.o) calls svc_encounter_state_at, which svc_encounter defines; svc_api may not use svc_encounter"

s=$(plant rules_move 'void svc_problem(void); void planted(void) { svc_problem(); }')
expect_refused "$s" "$root" "rules_move (rules_move_planted.o) calls svc_problem, which svc_http defines"

# Includes: a copy of the tree's api/ and encounter/ folders, one api file including a private
# header of encounter/ and another the encounter's public header.
mkdir -p "$tmp/src/service/api" "$tmp/src/service/encounter" "$tmp/src/scripts"
printf '#include "service/encounter/internal.h"\n' >"$tmp/src/service/api/a.c"
printf '#include "service/encounter/encounter.h"\n' >"$tmp/src/service/api/b.c"
grep -E '^layer (svc_api|svc_encounter) ' "$spec" >"$tmp/inc.spec"
expect_refused "$tmp/inc.spec" "$tmp/src" "service/api/a.c includes service/encounter/internal.h, a private header of another folder"
expect_refused "$tmp/inc.spec" "$tmp/src" "service/api/b.c includes service/encounter/encounter.h: svc_api may not use svc_encounter"
echo "test_layers: the tree keeps its arrows, and 4 planted crossings were refused"
