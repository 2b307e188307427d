// Converts openapi.yaml to the JSON served at GET /openapi.json (Redocly's bundler, so any
// external $ref would be resolved; the document keeps its internal $refs).
// Usage: node bundle.mjs openapi.yaml out.json
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [spec, out] = process.argv.slice(2);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(join(root, 'node_modules', '.bin', 'redocly'), ['bundle', spec, '--ext', 'json', '-o', out], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
