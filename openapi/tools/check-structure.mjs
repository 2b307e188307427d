// The structure client generators need, checked over the bundled contract (dist/openapi.json,
// what GET /openapi.json serves and what a generator is pointed at).
//
// openapi-python-client 0.29 (what most Python users reach for) skipped 21 of 52 operations of
// an earlier contract and typed others wrongly, for three reasons, each a rule here:
//   1. A `$ref` must name a whole component (`#/components/<kind>/<Name>`): the generator
//      resolves whole components only, so `#/components/schemas/RuleOptions/properties/grid`
//      failed every schema that used it.
//   2. Composition is `allOf` of two or more `$ref`s and nothing else. A schema with `allOf`
//      may add only annotations and `unevaluatedProperties` (which closes the composite to
//      members none of its parts names); a `$ref` likewise; a `oneOf`/`anyOf` has two or more
//      members; and a member two parts declare is declared alike. The generator reads a lone
//      reference in `allOf`/`oneOf`/`anyOf` as that reference, dropping the schema's own
//      `properties` (odds typed as AttackChances lost `explain`), and processes the referenced
//      model a second time, which names its inline models twice; @hey-api/openapi-ts drops a
//      `required` beside `allOf` (the members become optional): each part says what of it is
//      required.
//   3. Every class a generator makes gets a name no other class has once normalised: the
//      class names openapi-python-client derives (a component's name; an inline object or
//      enum named after its parent class and member, `_item` for array items, `_type_N` or
//      its title for union members, `{operationId}_body` and `{operationId}_response_{status}`
//      for bodies and answers), PascalCased as it does it (its utils.pascal_case), must be
//      unique, case and punctuation aside. Two enums may share a name only with the same
//      values (the generator reuses the class then).
// Also: every operation has an operationId and they are unique once normalised (they name
// the generated functions and modules).
//
// Usage: node check-structure.mjs openapi.json [--classes]
//   --classes prints the class names derived for rule 3, one a line (to compare them with a
//   client the generator made: grep -ho '^class [A-Za-z0-9_]*' models/*.py).
import { readFileSync } from 'node:fs';

const [path, option] = process.argv.slice(2);
if (!path) {
  console.error('usage: node check-structure.mjs openapi.json');
  process.exit(2);
}
const doc = JSON.parse(readFileSync(path, 'utf8'));
const problems = [];
const fail = (at, msg) => problems.push(`${at}: ${msg}`);
const escapePointer = (s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');

// Keywords that only describe (never shape a generated type).
const ANNOTATIONS = new Set(['description', 'title', 'deprecated', 'readOnly', 'writeOnly', 'examples', 'example', '$comment', 'summary', 'externalDocs']);
const COMPONENT_REF = /^#\/components\/[A-Za-z]+\/[A-Za-z0-9._-]+$/;

// Rules 1 and 2 over every schema object in the document (examples left out: they are data).
function walk(node, at) {
  if (Array.isArray(node)) {
    node.forEach((v, i) => walk(v, `${at}/${i}`));
    return;
  }
  if (!node || typeof node !== 'object') return;
  if (typeof node.$ref === 'string') {
    if (!COMPONENT_REF.test(node.$ref)) fail(at, `$ref ${node.$ref} points inside a component; make that shape its own component`);
    const extra = Object.keys(node).filter((k) => k !== '$ref' && k !== 'unevaluatedProperties' && !ANNOTATIONS.has(k));
    if (extra.length) fail(at, `$ref with sibling ${extra.join(', ')}: generators read the reference alone; compose with allOf of references`);
  }
  if (node.allOf !== undefined) {
    const refs = node.allOf.filter((s) => s && typeof s.$ref === 'string' && Object.keys(s).length === 1);
    if (refs.length !== node.allOf.length) fail(at, 'allOf holds an inline schema: every part must be a $ref to a component');
    if (node.allOf.length < 2) fail(at, 'allOf of one reference: use the $ref itself (generators treat it so and drop what stands beside it)');
    const extra = Object.keys(node).filter((k) => !['allOf', 'unevaluatedProperties', 'type'].includes(k) && !ANNOTATIONS.has(k));
    if (extra.length) fail(at, `allOf with sibling ${extra.join(', ')}: put those members in a component of their own and add its $ref to allOf`);
    if (node.type !== undefined && node.type !== 'object') fail(at, `allOf with type ${JSON.stringify(node.type)}`);
    conflictingMembers(refs, at);
  }
  for (const key of ['oneOf', 'anyOf'])
    if (Array.isArray(node[key]) && node[key].length < 2)
      fail(at, `${key} of one member: use that member itself`);
  for (const [k, v] of Object.entries(node)) if (k !== 'examples' && k !== 'example') walk(v, `${at}/${escapePointer(k)}`);
}
const isRef = (s) => s && typeof s.$ref === 'string';
function deref(schema) {
  let s = schema;
  for (let i = 0; s && typeof s.$ref === 'string' && i < 50; i++) {
    const parts = s.$ref.slice(2).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    s = parts.reduce((o, p) => (o ? o[p] : undefined), doc);
  }
  return s || {};
}
// The members a schema declares, through allOf parts.
function memberSchemas(schema) {
  const out = { ...(schema.properties || {}) };
  for (const part of schema.allOf || []) Object.assign(out, memberSchemas(deref(part)));
  return out;
}

// What a generator makes of a member's schema, to tell whether two allOf parts that both
// declare it agree (openapi-python-client merges them by parser/properties/merge_properties.py:
// any type gives way, enums narrow to the smaller list, a constant never merges with an enum).
function kind(schema) {
  const s = deref(schema);
  if (s.enum) return { t: 'enum', values: s.enum.filter((v) => v !== null) };
  if (s.const !== undefined) return { t: 'const', value: s.const };
  if (Array.isArray(s.type) || s.oneOf || s.anyOf) return { t: 'union', id: JSON.stringify(schema) };
  if (s.type === 'array') return { t: 'array', items: kind(s.items || {}) };
  if (s.type === 'integer' || s.type === 'number') return { t: 'number' };
  if (s.type === 'string' || s.type === 'boolean') return { t: s.type };
  if (s.type === 'object' || s.properties || s.allOf) return { t: 'object', id: isRef(schema) ? schema.$ref : JSON.stringify(schema) };
  return { t: 'any' };
}
function agree(a, b) {
  if (a.t === 'any' || b.t === 'any') return true;
  if (a.t === 'enum' && b.t === 'enum') return a.values.every((v) => b.values.includes(v)) || b.values.every((v) => a.values.includes(v));
  if (a.t === 'enum' || b.t === 'enum') {
    const [e, o] = a.t === 'enum' ? [a, b] : [b, a];
    return e.values.every((v) => (o.t === 'number' ? typeof v === 'number' : o.t === 'string' && typeof v === 'string'));
  }
  if (a.t !== b.t) return false;
  if (a.t === 'array') return agree(a.items, b.items);
  if (a.t === 'const') return JSON.stringify(a.value) === JSON.stringify(b.value);
  if (a.t === 'object' || a.t === 'union') return a.id === b.id;
  return true;
}
function conflictingMembers(refs, at) {
  const seen = new Map();
  for (const ref of refs)
    for (const [name, schema] of Object.entries(memberSchemas(deref(ref)))) {
      const k = kind(schema);
      const before = seen.get(name);
      if (before && !agree(before.k, k)) fail(at, `member ${name} is declared one way in ${before.ref} and another in ${ref.$ref}`);
      if (!before) seen.set(name, { k, ref: ref.$ref });
    }
}

walk(doc, '#');

// Rule 3: the class names openapi-python-client 0.29 derives, emulated from its parser
// (parser/properties/__init__.py property_from_data, model_property.py, enum_property.py,
// list_property.py, union.py, bodies.py, responses.py) and its utils.pascal_case.
const sanitize = (v) => v.replace(/[^\w. _-]+/g, '');
function splitWords(value) {
  let v = value;
  if (/[A-Z]/.test(v)) v = v.split(/([A-Z]?[a-z]+)/).join(' ');
  return v.match(/[^. _-]+/g) || [];
}
const isUpper = (w) => /[A-Z]/.test(w) && w === w.toUpperCase();
const capitalize = (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();
const pascal = (v) => splitWords(sanitize(v)).map((w) => (isUpper(w) ? w : capitalize(w))).join('');
const className = (v) => {
  const simple = v.split('/').pop();
  let name = pascal(simple);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) name = pascal(`field_${name}`);
  return name;
};
// The generator compares names as it makes them; a second, stricter comparison (case and
// punctuation folded) guards the other generators and file systems that fold case.
const fold = (name) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

const classes = new Map(); // folded name -> {name, where, enum}
function addClass(name, where, enumValues) {
  const key = fold(name);
  const seen = classes.get(key);
  if (!seen) {
    classes.set(key, { name, where, enumValues });
    return;
  }
  if (enumValues && seen.enumValues && seen.name === name && JSON.stringify(enumValues) === JSON.stringify(seen.enumValues)) return;
  fail(where, `a generated class would be named ${name}, as ${seen.name} already is for ${seen.where}`);
}

// Follows property_from_data: which schemas become classes, and the names of inner ones.
function property(schema, name, parent, where) {
  if (!schema || typeof schema !== 'object') return;
  if (isRef(schema)) return; // a reference uses the referenced class
  const subs = [...(schema.allOf || []), ...(schema.anyOf || []), ...(schema.oneOf || [])];
  if (subs.length === 1 && isRef(subs[0])) return;
  if (schema.type === 'boolean') return;
  if (schema.enum) {
    const values = schema.enum.filter((v) => v !== null);
    if (values.length === 0) return;
    if (values.length < schema.enum.length) {
      property({ ...schema, enum: values }, `${name}_type_1`, parent, where);
      return;
    }
    const base = schema.title || name;
    addClass(className(parent ? `${pascal(parent)}${pascal(base)}` : base), where, values);
    return;
  }
  if (schema.anyOf || schema.oneOf || Array.isArray(schema.type)) {
    const members = [...(schema.anyOf || []), ...(schema.oneOf || [])];
    if (Array.isArray(schema.type)) for (const t of schema.type) members.push({ ...schema, type: t, enum: undefined, default: undefined });
    members.forEach((m, i) => {
      const sub = m && m.title && m.title !== schema.title ? m.title : `type_${i}`;
      property(m, `${name}_${sub}`, parent, `${where}/${i}`);
    });
    return;
  }
  if (schema.const !== undefined) return;
  if (['string', 'number', 'integer', 'null'].includes(schema.type)) return;
  if (schema.type === 'array') {
    property(schema.items, `${name}_item`, parent, `${where}/items`);
    return;
  }
  if (schema.type === 'object' || schema.allOf || (schema.type === undefined && schema.properties)) {
    const base = schema.title || name;
    const cls = className(parent ? `${pascal(parent)}${pascal(base)}` : base);
    addClass(cls, where);
    for (const [key, sub] of Object.entries(schema.properties || {}))
      property(sub, key, cls, `${where}/properties/${escapePointer(key)}`);
    const ap = schema.additionalProperties;
    if (ap && typeof ap === 'object' && Object.keys(ap).length) property(ap, 'AdditionalProperty', cls, `${where}/additionalProperties`);
  }
}

for (const [name, schema] of Object.entries(doc.components?.schemas || {})) {
  const where = `#/components/schemas/${escapePointer(name)}`;
  if (isRef(schema)) {
    // A component that is a reference becomes a class of its own, built from its target.
    const target = deref(schema);
    property(target, name, '', where);
    continue;
  }
  property(schema, name, '', where);
}
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const operationIds = new Map();
for (const [p, item] of Object.entries(doc.paths || {}))
  for (const m of METHODS) {
    const op = item[m];
    if (!op) continue;
    const where = `#/paths/${escapePointer(p)}/${m}`;
    if (!op.operationId) {
      fail(where, 'no operationId');
      continue;
    }
    const key = fold(op.operationId);
    if (operationIds.has(key)) fail(where, `operationId ${op.operationId} is ${operationIds.get(key)}'s once normalised`);
    operationIds.set(key, op.operationId);
    const endpoint = op.operationId;
    for (const param of [...(item.parameters || []), ...(op.parameters || [])].map(deref))
      if (param.schema) property(param.schema, param.name, endpoint, `${where}/parameters/${param.name}`);
    const body = op.requestBody && deref(op.requestBody);
    const contents = Object.entries(body?.content || {});
    for (const [type, media] of contents) {
      const parent = contents.length > 1 ? `${endpoint}_${type.split('/').pop()}` : endpoint;
      if (media.schema) property(media.schema, 'body', parent, `${where}/requestBody/content/${escapePointer(type)}/schema`);
    }
    for (const [status, response] of Object.entries(op.responses || {})) {
      const r = deref(response);
      // The generator reads the first JSON-like media type of each answer.
      const entry = Object.entries(r.content || {}).find(([t]) => /^application\/(.+\+)?json/.test(t) || t === 'application/octet-stream');
      if (entry && entry[1].schema)
        property(entry[1].schema, `response_${status}`, endpoint, `${where}/responses/${status}`);
    }
  }

if (option === '--classes') for (const { name } of classes.values()) console.log(name);
if (problems.length) {
  console.error(`structure: ${problems.length} problem(s) in ${path}:`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log(`structure: ${path} holds whole-component references only, allOf of references only, and ${classes.size} generated class names, each unique once normalised`);
