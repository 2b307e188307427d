// Every limit the server enforces on a request is in the contract, with the server's number.
//
// The service tests run tacticsd with --record-bounds FILE (tests/service/CMakeLists.txt):
// every decoder call that bounds a field of the request's own body or query (codec_get_int,
// codec_get_string, codec_get_array, codec_query_whole: service/codec.h) appends the route, the
// field's JSON pointer and the bound it passed. So the numbers come from the decoders' own
// calls, the place the server takes them from, and a field the decoders start to bound, or
// bound differently, shows here the next time the suite runs. This checks each against
// openapi.yaml at that pointer of the operation's request body (or its query parameter):
//   int     LO HI  the schema's minimum and maximum are LO and HI;
//   length  0  N   its maxLength is N (an enum or a const bounds it already); the server
//                  counts bytes of UTF-8, the schema characters, so N characters of non-ASCII
//                  text can still be refused (info.description says so);
//   items   0  N   its maxItems is N.
// A bound marked ~ depends on the request or the server's settings (a map's width, the
// facings of the grid, the encounter's version): the schema's range must then hold every
// bound recorded (it states the widest any request allows). A pointer can reach several
// schemas: the members of a oneOf (an action's path is a move's or a forced movement's, each
// bounded its own way) or the parts of an allOf that each bound the member (the picture's
// mover takes a move's hit points and a token's); one of them must state the bound.
// A field a decoder asks for but the contract does not have, under an object the contract
// closes (additionalProperties or unevaluatedProperties false), is counted, not failed: the
// server refuses it as unknown before (a decoder shared by several requests asks for more
// than one of them takes), and the contract test (check-contract.mjs) fails any body the
// server accepts that the contract would refuse.
// Decoders bound fields the suite never sends too (a bound is recorded whether or not the
// field is present), so one request of each kind records every bound its decoder has.
//
// Usage: node check-bounds.mjs openapi.yaml bounds.log
import { readFileSync } from 'node:fs';
import YAML from 'yaml';

const [specPath, logPath] = process.argv.slice(2);
if (!specPath || !logPath) {
  console.error('usage: node check-bounds.mjs openapi.yaml bounds.log');
  process.exit(2);
}
const spec = YAML.parse(readFileSync(specPath, 'utf8'));
const unescape = (s) => s.replace(/~1/g, '/').replace(/~0/g, '~');
const deref = (s) => {
  for (let i = 0; s && typeof s.$ref === 'string' && i < 50; i++) s = s.$ref.slice(2).split('/').map(unescape).reduce((o, k) => o?.[k], spec);
  return s || {};
};
// A schema as its parts: itself and, through $ref and allOf, everything it is made of.
function parts(schema) {
  const s = deref(schema);
  return [s, ...(s.allOf || []).flatMap(parts)];
}
// The alternatives a schema stands for (oneOf/anyOf members), each as its parts.
function alternatives(schema) {
  const ps = parts(schema);
  const branches = ps.flatMap((p) => [...(p.oneOf || []), ...(p.anyOf || [])]);
  if (!branches.length) return [ps];
  return branches.flatMap((b) => alternatives(b).map((alt) => [...ps, ...alt]));
}
// Every schema the pointer's segments reach from schema: in each matching alternative, each
// part that declares the member (or the items, or the map's values).
function reach(schema, segments) {
  if (!segments.length) return [schema];
  const [seg, ...rest] = segments;
  const out = [];
  for (const alt of alternatives(schema)) {
    let next = alt.filter((p) => p.properties && p.properties[seg] !== undefined).map((p) => p.properties[seg]);
    if (!next.length && /^\d+$/.test(seg)) next = alt.filter((p) => p.items !== undefined).map((p) => p.items);
    if (!next.length) next = alt.filter((p) => p.additionalProperties && typeof p.additionalProperties === 'object').map((p) => p.additionalProperties);
    for (const n of next) out.push(...reach(n, rest));
  }
  return out;
}
// Whether every schema the pointer reaches is an object closed to members it does not name.
const closed = (schema, segments) => {
  const at = reach(schema, segments);
  return at.length > 0 && at.every((s) => alternatives(s).every((alt) => alt.some((p) => p.additionalProperties === false || p.unevaluatedProperties === false)));
};
// A keyword of a leaf, from whichever of its parts states it.
const keyword = (leaf, k) => parts(leaf).map((p) => p[k]).find((v) => v !== undefined);

const problems = [];
let refusedAnyway = 0;
const lines = readFileSync(logPath, 'utf8').split('\n').filter(Boolean);
if (lines.length === 0) problems.push('no bounds were recorded: did the service tests run with --record-bounds?');
const checked = new Set();
for (const line of lines) {
  const [route, pointer, kindMark, lo, hi] = line.split('\t');
  const [method, pattern] = route.split(' ');
  const dynamic = kindMark.endsWith('~');
  const kind = kindMark.replace(/~$/, '');
  const [low, high] = [Number(lo), Number(hi)];
  const op = spec.paths[pattern]?.[method.toLowerCase()];
  const where = `${method} ${pattern} ${pointer}`;
  if (!op) {
    problems.push(`${where}: openapi.yaml has no such operation`);
    continue;
  }
  let leaves, body, segments;
  if (pointer.startsWith('?')) {
    const param = (op.parameters || []).map(deref).find((p) => p.in === 'query' && p.name === pointer.slice(1));
    leaves = param ? [param.schema] : [];
  } else {
    body = op.requestBody && deref(op.requestBody).content?.['application/json']?.schema;
    segments = pointer.split('/').slice(1).map(unescape);
    leaves = body ? reach(body, segments) : [];
  }
  if (!leaves.length) {
    if (body && closed(body, segments.slice(0, -1))) refusedAnyway++;
    else problems.push(`${where}: the server bounds this field (${kindMark} ${lo}..${hi}) but openapi.yaml does not have it`);
    continue;
  }
  checked.add(`${where} ${kind}`);
  // What each leaf states, and whether one of them states the server's bound.
  const stated = leaves.map((leaf) => {
    if (keyword(leaf, 'enum') || keyword(leaf, 'const') !== undefined) return { ok: kind !== 'items', says: 'an enum' };
    if (kind === 'int') {
      const [min, max] = [keyword(leaf, 'minimum'), keyword(leaf, 'maximum')];
      const ok = dynamic ? min !== undefined && min <= low && (max === undefined || max >= high) : min === low && max === high;
      return { ok, says: `minimum ${min}, maximum ${max}` };
    }
    const k = kind === 'length' ? 'maxLength' : kind === 'items' ? 'maxItems' : undefined;
    const max = k && keyword(leaf, k);
    return { ok: k !== undefined && (dynamic ? max === undefined || max >= high : max === high), says: `${k} ${max}` };
  });
  if (!stated.some((x) => x.ok))
    problems.push(`${where}: the server takes ${kind === 'int' ? `${lo} to ${hi}` : `at most ${hi} ${kind === 'length' ? 'bytes' : 'items'}`}${dynamic ? ' (here: the bound depends on the request)' : ''}; openapi.yaml says ${[...new Set(stated.map((x) => x.says))].join(' / ')}`);
}

const unique = [...new Set(problems)];
if (unique.length) {
  console.error(`bounds: ${unique.length} problem(s) among ${lines.length} recorded bounds:`);
  for (const p of unique) console.error(`  - ${p}`);
  process.exit(1);
}
console.log(`bounds: ${checked.size} bounds the decoders enforce (${lines.length} recorded) match openapi.yaml; ${refusedAnyway} fields a decoder asks for are not the request's (refused as unknown)`);
