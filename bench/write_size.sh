#!/usr/bin/env bash
# Issue 18's "Less chatter": the bytes of one encounter write's answer on a 300 x 300 map (its
# rows alone are 91 KB) with the whole state (the default) and with Prefer: return=minimal
# (the event and the version), for a next turn and an attack; and one create with its two
# combatants and initiative against the four calls it replaces.
#   bench/write_size.sh [TACTICSD=build/release/service/tacticsd]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/service/tacticsd}
tmp=$(mktemp -d)
"$bin" --port 0 --db "$tmp/t.db" 2>"$tmp/log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do grep -q '"listening"' "$tmp/log" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '"port":[0-9]*' "$tmp/log" | head -1 | cut -d: -f2)
base=http://127.0.0.1:$port
fighter='{"id":"kroh","side":"party","x":5,"y":5,"speeds":{"walk":30},"defense":{"armor":5},"max_hp":20,"dex":12,"attacks":[{"name":"longsword","attack_bonus":6,"damage":"1d8+3"}]}'
gnoll='{"id":"gnoll","side":"monsters","x":6,"y":5,"speeds":{"walk":30},"defense":{"armor":2},"max_hp":11,"dex":13,"attacks":[{"name":"battleaxe","attack_bonus":3,"damage":"1d8+2"}]}'
rows=$(python3 -c 'import json; print(json.dumps(["." * 300] * 300))')
map="{\"width\":300,\"height\":300,\"rows\":$rows}"
J='Content-Type: application/json'
size() { wc -c <"$1" | tr -d ' '; }

# One call: create, two combatants, initiative.
curl -s -X POST "$base/v1/encounters" -H "$J" -d "{\"map\":$map,\"seed\":1,\"combatants\":[$fighter,$gnoll],\"initiative\":{}}" >"$tmp/one"
one=$(size "$tmp/one")
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$tmp/one")
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$tmp/one")
A="Authorization: Bearer $token"
# The same four calls apart, full answers.
curl -s -X POST "$base/v1/encounters" -H "$J" -d "{\"map\":$map,\"seed\":1}" >"$tmp/c1"
id2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$tmp/c1")
t2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$tmp/c1")
curl -s -X POST "$base/v1/encounters/$id2/combatants" -H "$J" -H "Authorization: Bearer $t2" -H 'If-Match: "v1"' -d "$fighter" >"$tmp/c2"
curl -s -X POST "$base/v1/encounters/$id2/combatants" -H "$J" -H "Authorization: Bearer $t2" -H 'If-Match: "v2"' -d "$gnoll" >"$tmp/c3"
curl -s -X POST "$base/v1/encounters/$id2/initiative" -H "$J" -H "Authorization: Bearer $t2" -H 'If-Match: "v3"' -d '{}' >"$tmp/c4"
apart=$(( $(size "$tmp/c1") + $(size "$tmp/c2") + $(size "$tmp/c3") + $(size "$tmp/c4") ))
w() { # w VERSION PATH BODY [PREFER]
  curl -s -X POST "$base/v1/encounters/$id/$2" -H "$J" -H "$A" -H "If-Match: \"v$1\"" ${4:+-H "Prefer: $4"} -d "$3"
}
w 4 next-turn '{}' >"$tmp/full_turn"
w 5 hp '{"target":"gnoll","change":-1}' return=minimal >"$tmp/min_hp"
w 6 hp '{"target":"gnoll","change":-1}' >"$tmp/full_hp"
first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state"]["turn_of"])' "$tmp/full_turn")
other=$([ "$first" = kroh ] && echo gnoll || echo kroh)
w 7 actions "{\"type\":\"attack\",\"actor\":\"$first\",\"target\":\"$other\"}" >"$tmp/full_attack"
w 8 next-turn '{}' return=minimal >"$tmp/min_turn"
w 9 actions "{\"type\":\"attack\",\"actor\":\"$other\",\"target\":\"$first\"}" return=minimal >"$tmp/min_attack"
printf 'map rows: %s bytes\n' "${#rows}"
printf 'next turn: full %s bytes, minimal %s bytes\n' "$(size "$tmp/full_turn")" "$(size "$tmp/min_turn")"
printf 'attack:    full %s bytes, minimal %s bytes\n' "$(size "$tmp/full_attack")" "$(size "$tmp/min_attack")"
printf 'hp:        full %s bytes, minimal %s bytes\n' "$(size "$tmp/full_hp")" "$(size "$tmp/min_hp")"
printf 'create + 2 combatants + initiative: one call %s bytes, four calls %s bytes\n' "$one" "$apart"
