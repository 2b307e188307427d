#!/usr/bin/env bash
# The typed-client check (issue 18): generate TypeScript types from the contract with
# openapi-typescript, compile tests/client/encounter.ts against them with `tsc --strict`, then
# run it against a real tacticsd on a scratch database.
# Usage: run.sh TACTICSD OPENAPI_DIR
set -euo pipefail
tacticsd=$1
openapi=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/typed-client.XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

cp "$here/encounter.ts" "$here/tsconfig.json" "$work/"
echo '{"type":"module","private":true}' >"$work/package.json"
ln -s "$openapi/node_modules" "$work/node_modules"
"$openapi/node_modules/.bin/openapi-typescript" "$openapi/dist/openapi.json" -o "$work/api.d.ts" \
  --silent
(cd "$work" && node_modules/.bin/tsc -p tsconfig.json)
echo "typed-client: tsc --strict accepted encounter.ts against the generated types"

# A port the kernel picks (--port 0), read from the "listening" line, which is waited for
# however long the server takes to start, unless it exits first.
"$tacticsd" --port 0 --db "$work/t.db" >"$work/server.log" 2>&1 &
pid=$!
until port=$(grep -o '"event":"listening".*"port":[0-9]*' "$work/server.log" | grep -o '[0-9]*$'); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "typed-client: tacticsd exited during start-up" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  sleep 0.05
done
node "$work/out/encounter.js" "http://127.0.0.1:$port"
kill -TERM "$pid"
wait "$pid" || { echo "typed-client: tacticsd exited $?" >&2; cat "$work/server.log" >&2; exit 1; }
pid=
if grep -q "Sanitizer" "$work/server.log"; then
  cat "$work/server.log" >&2
  exit 1
fi
