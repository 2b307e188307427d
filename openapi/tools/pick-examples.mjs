// Picks one real request/response pair per operation from the service suite's recorded
// exchanges (tests/service/harness.c appends one JSON line per exchange to
// $TACTICS_EXCHANGE_LOG) and writes openapi/examples.json, which bundle.mjs merges into the
// bundled contract and its docs page as each operation's example, and check-contract.mjs
// validates against the schemas.
//
// Stable across reruns, so the checked-in file changes only when an answer does:
//   - values that differ on every run are replaced by fixed placeholders of the same shape:
//     encounter ids (wherever they appear, paths included), an encounter's seed salt and
//     commitment (drawn by the server), write tokens, timestamps;
//   - given several logs (runs of the same suite), only a pair recorded identically, after
//     that, in every one of them is a candidate: an encounter whose seed the server drew
//     (its state shows the seed to the owner, and its dice follow it), dice without a seed,
//     or any value not normalised above differ between runs, so they are never picked;
//   - among the candidates of an operation: the documented success status first (201 before
//     another 2xx for a create), then answers shown in full (a JSON answer over 64 KB, left
//     out below, would otherwise win as the smallest), then answers that found something (no
//     empty top-level list, no `found`, `legal` or `ok` false), then the smallest request plus
//     response, then the text itself (no dependence on log order).
// A response over 64 KB (GET /openapi.json, /docs) or not JSON (/metrics, /play, pictures) is
// not copied: the entry records its status and media type only.
//
// Usage: node pick-examples.mjs openapi.yaml out.json exchanges.jsonl [exchanges.jsonl...]
// (openapi/tools/record-examples.sh runs the service suite twice and calls this).
import { readFileSync, writeFileSync } from 'node:fs';
import YAML from 'yaml';

const [specPath, outPath, ...logs] = process.argv.slice(2);
if (!specPath || !outPath || logs.length === 0) {
  console.error('usage: node pick-examples.mjs openapi.yaml out.json exchanges.jsonl [more.jsonl...]');
  process.exit(2);
}
if (logs.length < 2) console.error('pick-examples: one log only, so nothing tells a stable answer from a drawn one');

const MAX_BODY = 64 * 1024;
const spec = YAML.parse(readFileSync(specPath, 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

// Literal templates before templated ones (/v1/encounters/import before /v1/encounters/{id}).
const templates = Object.keys(spec.paths)
  .map((template) => ({
    template,
    params: (template.match(/\{/g) || []).length,
    regex: new RegExp('^' + template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
  }))
  .sort((a, b) => a.params - b.params);

// Placeholders: each has the shape the contract gives the value it replaces.
const ID_PLACEHOLDER = (n) => String(n).padStart(32, '0');
const SALT = '0'.repeat(32);
const COMMITMENT = '0'.repeat(64);
const TOKEN = 'f'.repeat(32);
const TIMESTAMP = '2026-01-01T00:00:00.000Z';
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\b/g;

const DRAWN_SEED = 4503599627370495; // a placeholder for a seed the server drew

function normaliser() {
  const ids = new Map();
  const idOf = (hex) => {
    if (!ids.has(hex)) ids.set(hex, ID_PLACEHOLDER(ids.size + 1));
    return ids.get(hex);
  };
  const text = (s) =>
    s.replace(/\/v1\/encounters\/([0-9a-f]{32})/g, (_, hex) => `/v1/encounters/${idOf(hex)}`)
      .replace(/\b[0-9a-f]{32}\b/g, (hex) => (ids.has(hex) ? ids.get(hex) : hex))
      .replace(/encounter=([0-9a-f]{32})/g, (_, hex) => `encounter=${idOf(hex)}`)
      .replace(ISO_TIME, TIMESTAMP);
  const value = (v, key) => {
    if (Array.isArray(v)) return v.map((x) => value(x));
    if (v && typeof v === 'object') {
      // An encounter's own id is learned first, so its every mention maps to the same placeholder.
      if (typeof v.id === 'string' && /^[0-9a-f]{32}$/.test(v.id)) idOf(v.id);
      // A copy's seed is drawn by the server at import (its state, and its imported event's
      // effects, show it to the owner): a placeholder, as the salt is.
      const drawn = 'copy_of' in v;
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => {
          if (k === 'seed_salt' && typeof x === 'string') return [k, SALT];
          if (k === 'seed_commitment' && typeof x === 'string') return [k, COMMITMENT];
          if (k === 'token' && typeof x === 'string') return [k, TOKEN];
          if (k === 'seed' && drawn && typeof x === 'number') return [k, DRAWN_SEED];
          return [k, value(x, k)];
        }),
      );
    }
    if (typeof v === 'string') return text(v);
    return v;
  };
  return { text, value };
}

function parseJson(s) {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

// One candidate per successful exchange, keyed by its normalised text.
function candidates(log) {
  const out = new Map();
  for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const ex = JSON.parse(line);
    if (ex.status < 200 || ex.status >= 300 || ex.method === 'HEAD' || ex.method === 'OPTIONS') continue;
    const path = ex.path.split('?')[0];
    const match = templates.find((t) => t.regex.test(path));
    const op = match && spec.paths[match.template][ex.method.toLowerCase()];
    if (!op || !op.operationId) continue;
    const norm = normaliser();
    // The response first: an encounter's id is learned from the answer that created it.
    const mediaType = (ex.content_type || '').split(';')[0].trim().toLowerCase();
    const entry = { method: ex.method, path: '', status: ex.status, media_type: ex.content_type || undefined };
    let response;
    if (ex.body === undefined || ex.body === '') response = undefined;
    else if (!/json$/.test(mediaType)) entry.response_omitted = 'not JSON';
    else if (ex.body.length > MAX_BODY) entry.response_omitted = `over ${MAX_BODY / 1024} KB`;
    else {
      const parsed = parseJson(ex.body);
      if (!parsed.ok) continue;
      response = norm.value(parsed.value);
    }
    entry.path = norm.text(ex.path);
    if (ex.request_body !== undefined) {
      const parsed = parseJson(ex.request_body);
      if (!parsed.ok) continue;
      entry.request = norm.value(parsed.value);
    }
    if (response !== undefined) entry.response = response;
    const key = JSON.stringify(entry);
    if (!out.has(key)) out.set(key, { operationId: op.operationId, entry, tests: new Set() });
    if (ex.test) out.get(key).tests.add(ex.test);
  }
  return out;
}

const runs = logs.map(candidates);
const stable = [...runs[0].values()].filter((c) => runs.every((r) => r.has(JSON.stringify(c.entry))));
for (const r of runs.slice(1))
  for (const c of stable) for (const t of r.get(JSON.stringify(c.entry)).tests) c.tests.add(t);

// An answer that found nothing: an empty top-level list, or `found`, `legal` or `ok` false.
const foundNothing = (v) =>
  v && typeof v === 'object' && !Array.isArray(v) &&
  (Object.values(v).some((x) => Array.isArray(x) && x.length === 0) || ['found', 'legal', 'ok'].some((k) => v[k] === false));
const successStatus = (op) => Number(Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s)).sort()[0]);

const byOp = new Map();
for (const c of stable) {
  if (!byOp.has(c.operationId)) byOp.set(c.operationId, []);
  byOp.get(c.operationId).push(c);
}
const operations = {};
const missing = [];
for (const template of Object.keys(spec.paths))
  for (const m of METHODS) {
    const op = spec.paths[template][m];
    if (!op) continue;
    const list = byOp.get(op.operationId);
    if (!list) {
      missing.push(`${op.operationId} (${m.toUpperCase()} ${template})`);
      continue;
    }
    const wanted = successStatus(op);
    const rank = (c) => {
      const text = JSON.stringify(c.entry);
      const clipped = c.entry.response_omitted !== undefined && c.entry.response_omitted !== 'not JSON';
      return [c.entry.status === wanted ? 0 : 1, clipped ? 1 : 0, foundNothing(c.entry.response) ? 1 : 0, text.length, text];
    };
    const cmp = (a, b) => {
      const x = rank(a), y = rank(b);
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
      return 0;
    };
    const best = list.sort(cmp)[0];
    // The test named is the first in order, so the choice does not depend on log order either.
    const tests = [...best.tests].sort();
    operations[op.operationId] = { ...best.entry, ...(tests.length ? { test: tests[0] } : {}) };
  }

const doc = {
  $comment:
    'Generated by openapi/tools/pick-examples.mjs from the service tests (openapi/tools/record-examples.sh); do not edit. Encounter ids, seed salts and commitments, tokens and times are placeholders.',
  operations,
};
writeFileSync(outPath, JSON.stringify(doc, null, 2) + '\n');
console.error(`pick-examples: ${Object.keys(operations).length} operations from ${logs.length} run(s), ${stable.length} stable exchanges`);
if (missing.length) {
  console.error(`pick-examples: no successful exchange recorded alike in every run for ${missing.join(', ')}`);
  process.exit(1);
}
