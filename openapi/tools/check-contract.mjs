// Contract enforcement over recorded exchanges (ajv, JSON Schema 2020-12, OpenAPI 3.1's dialect).
//
// Every response the service tests received (tests/service/harness.c appends one JSON line per
// exchange to $TACTICS_EXCHANGE_LOG) is checked against openapi.yaml:
//   - the path and method select an operation, and the status must be one it documents;
//   - the Content-Type must be one of that response's media types, and a JSON body must
//     validate against its schema; headers the response marks required must be present;
//   - a request body the server accepted (2xx) must validate against the operation's
//     requestBody schema, so the contract documents every field the server takes;
//   - a refused framing or target may be answered 400 bad-request on any path, a path no
//     operation lists must have been answered 404, a method a path does not list 405 with
//     Allow (openapi.yaml's info.description lists these answers any path may give; each is
//     checked as a problem+json Problem with X-Request-Id), an OPTIONS (CORS preflight) 204
//     with an empty body.
// Coverage both ways: every route in the server's table is an operation here and every
// operation here is a route, and every operation was called by at least one test; every POST
// and PATCH was sent at least one invalid body (answered 4xx and checked like any other).
// Every operation has a recorded example in openapi/examples.json that still validates.
//
// ajv over recorded exchanges was chosen over Prism as a validating proxy: the proxy would sit
// between the tests and the server and itself answer the malformed, oversized and slow
// requests the tests send on purpose, so those answers would not be the server's own.
//
// Usage: node check-contract.mjs openapi.yaml exchanges.jsonl LIST_ROUTES_BINARY
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

const [specPath, exchangesPath, listRoutes] = process.argv.slice(2);
if (!specPath || !exchangesPath || !listRoutes) {
  console.error('usage: node check-contract.mjs openapi.yaml exchanges.jsonl list_routes');
  process.exit(2);
}

const spec = YAML.parse(readFileSync(specPath, 'utf8'));
// The answers any path may give (info.description), as response objects this check holds
// itself: the contract lists them once in prose rather than under every operation.
const anyPathAnswer = (type, headers = {}) => ({
  headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...headers },
  content: {
    'application/problem+json': {
      schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { type: { const: `tag:tactics.dev,2026:problem:${type}` } } }] },
    },
  },
});
spec['x-any-path'] = {
  BadRequest: anyPathAnswer('bad-request'),
  NotFound: anyPathAnswer('not-found'),
  MethodNotAllowed: anyPathAnswer('method-not-allowed', { Allow: { required: true, schema: { type: 'string' } } }),
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec, 'openapi');

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const escapePointer = (s) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const failures = [];
const fail = (msg) => failures.push(msg);

// Follows $ref chains inside the document, returning the object and its JSON pointer.
function resolve(obj, pointer) {
  while (obj && obj.$ref) {
    pointer = obj.$ref.slice(1);
    obj = pointer.split('/').slice(1).reduce((o, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return { obj, pointer };
}

const templates = Object.keys(spec.paths).map((template) => ({
  template,
  regex: new RegExp('^' + template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
}));
const operations = new Map(); // "GET /path" -> {covered}
for (const { template } of templates)
  for (const m of METHODS)
    if (spec.paths[template][m]) operations.set(`${m.toUpperCase()} ${template}`, { covered: 0, refused: 0 });

const validators = new Map();
function validatorFor(pointer) {
  if (!validators.has(pointer)) validators.set(pointer, ajv.compile({ $ref: `openapi#${pointer}` }));
  return validators.get(pointer);
}

// Checks one exchange against a response object found at `pointer`.
function checkResponse(ex, response, pointer, label) {
  const { obj, pointer: at } = resolve(response, pointer);
  const ct = (ex.content_type || '').toLowerCase().replace(/\s+/g, ' ').trim();
  for (const [name, header] of Object.entries(obj.headers || {})) {
    const h = resolve(header, '').obj;
    if (h.required && !(name.toLowerCase() in (ex.headers || {})))
      fail(`${label}: required header ${name} missing`);
  }
  if (ex.method === 'HEAD') return;
  const content = obj.content || {};
  if (Object.keys(content).length === 0) {
    if (ex.body) fail(`${label}: body sent but none documented`);
    return;
  }
  // A media type documented without parameters matches any (multipart/form-data's boundary).
  const bare = ct.split(';')[0].trim();
  const mediaType =
    Object.keys(content).find((k) => k.toLowerCase().replace(/\s+/g, ' ') === ct) ??
    Object.keys(content).find((k) => !k.includes(';') && k.toLowerCase() === bare && bare !== ct);
  if (!mediaType) {
    fail(`${label}: Content-Type "${ex.content_type}" is not one of ${Object.keys(content).join(', ')}`);
    return;
  }
  // A binary body (a PNG) is recorded by its length alone (tests/service/harness.c): its media
  // type was checked above, and it must not be empty.
  if (ex.body === undefined && ex.body_length !== undefined) {
    if (!(ex.body_length > 0)) fail(`${label}: empty ${mediaType} body`);
    return;
  }
  const schema = content[mediaType].schema;
  if (!schema) return;
  let body = ex.body;
  if (/json/.test(mediaType)) {
    try {
      body = JSON.parse(ex.body);
    } catch (e) {
      fail(`${label}: body is not JSON: ${e.message}`);
      return;
    }
  }
  const validate = validatorFor(`${at}/content/${escapePointer(mediaType)}/schema`);
  if (!validate(body))
    fail(`${label}: body does not match the schema: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n    body: ${String(ex.body).slice(0, 400)}`);
}

const lines = readFileSync(exchangesPath, 'utf8').split('\n').filter(Boolean);
if (lines.length === 0) fail('no exchanges were recorded: did the service tests run?');
for (const line of lines) {
  const ex = JSON.parse(line);
  const path = ex.path.split('?')[0];
  const label = `${ex.method} ${ex.path} -> ${ex.status}`;
  const match = templates.find((t) => t.regex.test(path));
  // Framing or a target refused before routing (two lengths, %00, %2F in the path) is a 400
  // any path may get, like 404 and 405.
  if (ex.status === 400 && /problem:bad-request"/.test(ex.body || '')) {
    checkResponse(ex, spec['x-any-path'].BadRequest, '/x-any-path/BadRequest', label);
    continue;
  }
  if (!match) {
    if (ex.status !== 404) fail(`${label}: no operation has this path, so it must be 404`);
    else checkResponse(ex, spec['x-any-path'].NotFound, '/x-any-path/NotFound', label);
    continue;
  }
  const item = spec.paths[match.template];
  if (ex.method === 'OPTIONS') {
    if (ex.status !== 204 || ex.body) fail(`${label}: a preflight must be 204 with no body`);
    continue;
  }
  const method = ex.method === 'HEAD' ? 'get' : ex.method.toLowerCase();
  const op = item[method];
  if (!op) {
    if (ex.status !== 405) fail(`${label}: ${match.template} has no ${ex.method}, so it must be 405`);
    else checkResponse(ex, spec['x-any-path'].MethodNotAllowed, '/x-any-path/MethodNotAllowed', label);
    continue;
  }
  const counts = operations.get(`${method.toUpperCase()} ${match.template}`);
  counts.covered++;
  if (ex.status >= 400 && ex.status < 500 && ex.request_body) counts.refused++;
  // A request the server accepted must be one the contract describes, so clients generated
  // from it can send everything the server takes.
  const requestSchema = op.requestBody && resolve(op.requestBody, '').obj.content?.['application/json']?.schema;
  if (ex.status >= 200 && ex.status < 300 && requestSchema && ex.request_body !== undefined) {
    const base = `/paths/${escapePointer(match.template)}/${method}/requestBody`;
    const at = op.requestBody.$ref ? resolve(op.requestBody, base).pointer : base;
    const validate = validatorFor(`${at}/content/application~1json/schema`);
    let body;
    try {
      body = JSON.parse(ex.request_body);
    } catch {
      body = undefined;
    }
    if (body !== undefined && !validate(body))
      fail(`${label}: the server accepted a request body openapi.yaml does not allow: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n    request: ${ex.request_body.slice(0, 300)}`);
  }
  const status = String(ex.status);
  const key = op.responses[status] ? status : op.responses[`${status[0]}XX`] ? `${status[0]}XX` : 'default';
  const response = op.responses[key];
  if (!response) {
    fail(`${label}: status ${status} is not documented for ${method.toUpperCase()} ${match.template}`);
    continue;
  }
  checkResponse(ex, response, `/paths/${escapePointer(match.template)}/${method}/responses/${key}`, label);
}

for (const [op, { covered }] of operations) if (covered === 0) fail(`${op} is in openapi.yaml but no test calls it`);
// Invalid bodies, not only what the suite happens to send (tests/service/test_invalid_bodies.c
// sends a set to every POST and PATCH): each such operation must have refused one, and its
// answer was checked above against the responses the operation documents.
for (const [op, { refused }] of operations)
  if (/^(POST|PATCH) /.test(op) && refused === 0) fail(`${op} was never sent an invalid body`);

// The examples the bundle shows (openapi/examples.json, recorded from these tests by
// tools/record-examples.sh): one for every operation, each still valid, so an answer that
// changes shape fails here until its example is recorded again.
const examplesPath = join(dirname(specPath), 'examples.json');
const recorded = existsSync(examplesPath) ? JSON.parse(readFileSync(examplesPath, 'utf8')).operations : {};
const refresh = 'run openapi/tools/record-examples.sh BUILD_DIR, then openapi/tools/regenerate.sh';
const operationIds = new Set();
for (const { template, regex } of templates)
  for (const m of METHODS) {
    const op = spec.paths[template][m];
    if (!op) continue;
    operationIds.add(op.operationId);
    const entry = recorded[op.operationId];
    const label = `examples.json ${op.operationId}`;
    if (!entry) {
      fail(`${op.operationId} (${m.toUpperCase()} ${template}) has no recorded example: ${refresh}`);
      continue;
    }
    if (entry.method !== m.toUpperCase() || !regex.test(entry.path.split('?')[0])) {
      fail(`${label}: ${entry.method} ${entry.path} is not ${m.toUpperCase()} ${template}: ${refresh}`);
      continue;
    }
    const base = `/paths/${escapePointer(template)}/${m}`;
    if (entry.request !== undefined) {
      const body = op.requestBody && resolve(op.requestBody, `${base}/requestBody`);
      const validate = body?.obj.content?.['application/json']?.schema && validatorFor(`${body.pointer}/content/application~1json/schema`);
      if (!validate) fail(`${label}: a request body, but the operation takes none`);
      else if (!validate(entry.request))
        fail(`${label}: the request no longer matches the schema (${ajv.errorsText(validate.errors, { separator: '; ' })}): ${refresh}`);
    }
    const status = String(entry.status);
    if (!/^2\d\d$/.test(status) || !op.responses[status]) {
      fail(`${label}: status ${status} is not a documented success: ${refresh}`);
      continue;
    }
    if (entry.response === undefined) continue;
    const { obj, pointer } = resolve(op.responses[status], `${base}/responses/${status}`);
    const mediaType = Object.keys(obj.content || {}).find((k) => k.split(';')[0].trim() === (entry.media_type || '').split(';')[0].trim());
    if (!mediaType || !obj.content[mediaType].schema) {
      fail(`${label}: media type ${entry.media_type} is not documented for ${status}`);
      continue;
    }
    const validate = validatorFor(`${pointer}/content/${escapePointer(mediaType)}/schema`);
    if (!validate(entry.response))
      fail(`${label}: the ${status} answer no longer matches the schema (${ajv.errorsText(validate.errors, { separator: '; ' })}): ${refresh}`);
  }
for (const id of Object.keys(recorded))
  if (!operationIds.has(id)) fail(`examples.json has ${id}, which openapi.yaml no longer has: ${refresh}`);

const routes = JSON.parse(execFileSync(listRoutes, { encoding: 'utf8' }));
const routeKeys = new Set(routes.map((r) => `${r.method} ${r.pattern}`));
for (const key of routeKeys) if (!operations.has(key)) fail(`the server routes ${key} but openapi.yaml lacks it`);
for (const key of operations.keys()) if (!routeKeys.has(key)) fail(`openapi.yaml has ${key} but the server has no such route`);

if (failures.length) {
  console.error(`contract: ${failures.length} problem(s) in ${lines.length} exchanges:`);
  for (const f of failures) console.error(`  - ${f}`);
  process.exit(1);
}
console.log(`contract: ${lines.length} exchanges match openapi.yaml; ${operations.size} operations, each called by a test and with a valid recorded example`);
