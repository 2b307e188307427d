#!/usr/bin/env bash
# The contract through a second generator (issue 34): @hey-api/openapi-ts (pinned in
# openapi/package-lock.json) generates an SDK from openapi/dist/openapi.json; it must hold one
# function per operation of the contract, `tsc --strict` must accept tests/client/sdk.ts
# against it (the generated client included), and sdk.ts then runs against a real tacticsd on
# a scratch database.
# Usage: sdk.sh TACTICSD OPENAPI_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
client_begin typed-sdk "$@"

cp "$here/sdk.ts" "$work/"
cp "$here/tsconfig.sdk.json" "$work/tsconfig.json"
echo '{"type":"module","private":true}' >"$work/package.json"
ln -s "$openapi/node_modules" "$work/node_modules"
(cd "$work" && node --input-type=module -e "
import { createClient } from '@hey-api/openapi-ts';
await createClient({ input: '$openapi/dist/openapi.json',
  output: { path: 'gen', importFileExtension: '.js' }, plugins: ['@hey-api/client-fetch'],
  logs: { level: 'silent', file: false } });")
# One SDK function per operation: none left out.
node --input-type=module -e "
import { readFileSync } from 'node:fs';
const doc = JSON.parse(readFileSync('$openapi/dist/openapi.json', 'utf8'));
const ids = Object.values(doc.paths).flatMap((item) => Object.values(item)).map((op) => op.operationId).filter(Boolean);
const sdk = readFileSync('$work/gen/sdk.gen.ts', 'utf8');
const made = new Set([...sdk.matchAll(/^export const (\w+) = /gm)].map((m) => m[1]));
const missing = ids.filter((id) => !made.has(id));
if (missing.length) { console.error('typed-sdk: no SDK function for ' + missing.join(', ')); process.exit(1); }
console.log('typed-sdk: @hey-api/openapi-ts made a function for each of the ' + ids.length + ' operations');"
(cd "$work" && node_modules/.bin/tsc -p tsconfig.json)
echo "typed-sdk: tsc --strict accepted sdk.ts against the generated SDK"

server_up
node "$work/out/sdk.js" "http://127.0.0.1:$port"
server_down
