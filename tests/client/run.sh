#!/usr/bin/env bash
# The typed-client check (issue 18): generate TypeScript types from the contract with
# openapi-typescript, compile tests/client/encounter.ts against them with `tsc --strict`, then
# run it against a real tacticsd on a scratch database.
# Usage: run.sh TACTICSD OPENAPI_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
client_begin typed-client "$@"

cp "$here/encounter.ts" "$here/tsconfig.json" "$work/"
echo '{"type":"module","private":true}' >"$work/package.json"
ln -s "$openapi/node_modules" "$work/node_modules"
"$openapi/node_modules/.bin/openapi-typescript" "$openapi/dist/openapi.json" -o "$work/api.d.ts" \
  --silent
(cd "$work" && node_modules/.bin/tsc -p tsconfig.json)
echo "typed-client: tsc --strict accepted encounter.ts against the generated types"

server_up
node "$work/out/encounter.js" "http://127.0.0.1:$port"
server_down
