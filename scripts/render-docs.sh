#!/usr/bin/env bash
# Regenerates the pictures in docs/images/ (shown in the README) with the Release binary: each
# docs/images/requests/NAME.json is sent to POST /v1/render and its answer written to
# docs/images/NAME.png; encounter.png is a frame of a small stored encounter.
# Usage: scripts/render-docs.sh   (builds build/release first; needs curl)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make -s build JOBS="${JOBS:-2}" >/dev/null
tmp=$(mktemp -d)
build/release/service/tacticsd --port 0 --db "$tmp/docs.db" 2>"$tmp/log" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do
  port=$(sed -n 's/.*"listening".*"port":\([0-9]*\).*/\1/p' "$tmp/log" | head -1)
  [ -n "$port" ] && break
  sleep 0.1
done
base="http://127.0.0.1:$port"
for req in docs/images/requests/*.json; do
  name=$(basename "$req" .json)
  code=$(curl -s -o "docs/images/$name.png" -w '%{http_code}' -X POST "$base/v1/render" \
              -H 'Content-Type: application/json' --data-binary @"$req")
  [ "$code" = 200 ] || { echo "$name: $code $(cat "docs/images/$name.png")" >&2; exit 1; }
  echo "docs/images/$name.png"
done

# A stored encounter: two sides, a goblin flat-footed, then the frame after event 6 (the fifth combatant).
post() { curl -s -X POST "$base$1" -H 'Content-Type: application/json' "${@:3}" -d "$2"; }
enc=$(post /v1/encounters '{"name": "ambush", "map": {"width": 12, "height": 9,
  "squares": [{"x": 5, "y": 2, "height": 3, "terrain": "blocked"},
              {"x": 8, "y": 6, "width": 3, "height": 2, "terrain": "difficult"}]}}')
id=$(sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p' <<<"$enc")
token=$(sed -n 's/.*"token":"\([^"]*\)".*/\1/p' <<<"$enc")
v=1
add() {
  post "/v1/encounters/$id/combatants" "$1" -H "Authorization: Bearer $token" \
       -H "If-Match: \"v$v\"" -o /dev/null
  v=$((v + 1))
}
add '{"id": "aria", "name": "Aria", "side": "party", "x": 2, "y": 4, "speeds": {"walk": 30}, "defense": {}, "max_hp": 20, "dex": 14}'
add '{"id": "bran", "name": "Bran", "side": "party", "x": 3, "y": 6, "speeds": {"walk": 20}, "defense": {}, "max_hp": 26, "dex": 10}'
add '{"id": "gob1", "name": "Goblin 1", "side": "goblins", "x": 7, "y": 4, "speeds": {"walk": 30}, "defense": {}, "max_hp": 7, "dex": 12, "conditions": ["flat_footed"]}'
add '{"id": "gob2", "name": "Goblin 2", "side": "goblins", "x": 8, "y": 2, "speeds": {"walk": 30}, "defense": {}, "max_hp": 7, "dex": 12}'
add '{"id": "wolf", "name": "Wolf", "side": "goblins", "x": 6, "y": 6, "size": "medium", "speeds": {"walk": 50}, "defense": {}, "max_hp": 13, "dex": 15}'
curl -s -o docs/images/encounter.png "$base/v1/encounters/$id/map.png?at=6&overlay=threatened,reach&focus=aria"
echo docs/images/encounter.png
