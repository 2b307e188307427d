// Builds the offline API reference page: `redocly build-docs`, then the Redoc script it loads
// from a CDN is inlined from the redoc package npm installed beside it (the same version), and
// the web-font link is dropped (the page falls back to system fonts). Fails if any external
// script, stylesheet or font remains, because users and these machines are often offline.
// Usage: node build-docs.mjs dist/openapi.json out.html (regenerate.sh passes the bundle, which
// carries the recorded examples; openapi.yaml works too, without them)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [spec, out] = process.argv.slice(2);
if (!spec || !out) {
  console.error('usage: node build-docs.mjs openapi.yaml out.html');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const redocly = join(root, 'node_modules', '.bin', 'redocly');
const tmp = mkdtempSync(join(tmpdir(), 'tactics-docs-'));
try {
  const raw = join(tmp, 'docs.html');
  execFileSync(redocly, ['build-docs', spec, '-o', raw], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  let html = readFileSync(raw, 'utf8');
  const bundle = readFileSync(join(root, 'node_modules', 'redoc', 'bundles', 'redoc.standalone.js'), 'utf8');
  if (bundle.includes('</script')) throw new Error('redoc bundle contains </script and cannot be inlined');

  const cdnScript = /<script src="https:\/\/[^"]*redoc\.standalone\.js"><\/script>/;
  if (!cdnScript.test(html)) throw new Error('build-docs output no longer loads redoc.standalone.js from a URL; update this script');
  html = html.replace(cdnScript, () => `<script>${bundle}</script>`);
  html = html.replace(/<link href="https:\/\/fonts\.googleapis\.com[^"]*" rel="stylesheet">/g, '');

  const external = html.match(/<(script|link|img)[^>]+(src|href)="(https?:)?\/\/[^"]*"/g);
  if (external) throw new Error(`external resources remain: ${external.join(', ')}`);
  writeFileSync(out, html);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
