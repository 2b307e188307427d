// Converts openapi.yaml to the JSON served at GET /openapi.json (Redocly's bundler, so any
// external $ref would be resolved; the document keeps its internal $refs), then merges the
// examples recorded from the service tests (examples.json beside openapi.yaml, written by
// pick-examples.mjs) into each operation: its JSON request body and its success response get
// `examples: {recorded: ...}` unless openapi.yaml already gives one there by hand. A shared
// response ($ref to components/responses) is left alone: its example would speak for every
// operation that uses it. docs.html is built from this output, so the page shows the same.
// Usage: node bundle.mjs openapi.yaml out.json
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [spec, out] = process.argv.slice(2);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(join(root, 'node_modules', '.bin', 'redocly'), ['bundle', spec, '--ext', 'json', '-o', out], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});

const examplesPath = join(dirname(spec), 'examples.json');
if (existsSync(examplesPath)) {
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  const recorded = JSON.parse(readFileSync(examplesPath, 'utf8')).operations;
  const hasExample = (media) => media.example !== undefined || media.examples !== undefined;
  const example = (entry, what) => ({
    recorded: {
      summary: 'recorded from the service tests',
      description: `${what} of \`${entry.method} ${entry.path}\`${entry.test ? ` in the test ${entry.test}` : ''} (tests/service); encounter ids, seed salts and commitments, tokens and times are placeholders.`,
    },
  });
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item)) {
      const entry = op && op.operationId && recorded[op.operationId];
      if (!entry) continue;
      const request = op.requestBody && !op.requestBody.$ref && op.requestBody.content?.['application/json'];
      if (request && entry.request !== undefined && !hasExample(request)) {
        request.examples = example(entry, 'The request body');
        request.examples.recorded.value = entry.request;
      }
      const response = op.responses?.[String(entry.status)];
      if (!response || response.$ref || entry.response === undefined) continue;
      const base = (t) => (t || '').split(';')[0].trim().toLowerCase();
      const key = Object.keys(response.content || {}).find((k) => base(k) === base(entry.media_type));
      if (!key || hasExample(response.content[key])) continue;
      response.content[key].examples = example(entry, `The ${entry.status} answer`);
      response.content[key].examples.recorded.value = entry.response;
    }
  writeFileSync(out, JSON.stringify(doc, null, 2));
}
