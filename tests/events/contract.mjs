// The event contract checked with tools nobody here wrote (docs/events.md):
//   1. @asyncapi/parser accepts the AsyncAPI 3 document `svc asyncapi` prints, and the copy in
//      docs/events/asyncapi.json is that document;
//   2. Ajv validates every sample of the event codecs' golden file (every member set, and every
//      member empty) against its type's payload schema, in its public form;
//   3. json-schema-diff finds no released schema that the current one narrows: every schema of every
//      release in docs/events/released/ must accept all it accepted (the topics keep history for
//      ever, so compatibility is transitive: with every release, not only the last);
//   4. the gate itself: a deliberately breaking change (a member's type changed, a member made
//      required) is found by the same check, and a compatible one (an optional member) is not.
// Usage: node contract.mjs <path to svc> <repository root>
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from '@asyncapi/parser';
import Ajv from 'ajv';
import jsonSchemaDiff from 'json-schema-diff';

const [svc, root] = process.argv.slice(2);
if (!svc || !root) {
  console.error('usage: node contract.mjs <path to svc> <repository root>');
  process.exit(2);
}
let passed = 0;
let failed = 0;
const check = (ok, what) => {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.error(`FAILED: ${what}`);
  }
};

// 1. The document.
const text = execFileSync(svc, ['asyncapi'], { encoding: 'utf8' });
const doc = JSON.parse(text);
const { document, diagnostics } = await new Parser().parse(text);
const errors = diagnostics.filter((d) => d.severity === 0);
for (const e of errors) console.error(JSON.stringify(e));
check(document !== undefined && errors.length === 0, 'the AsyncAPI parser accepts the document');
const warnings = diagnostics.filter((d) => d.severity === 1);
for (const w of warnings) console.error(`warning: ${w.code} ${w.message} at ${w.path.join('/')}`);
check(warnings.length === 0, 'no warnings from the parser');
if (document) {
  check(document.version() === '3.0.0', 'AsyncAPI 3.0.0');
  check(document.channels().length === Object.keys(doc.channels).length, 'every channel read');
  check(document.messages().length === Object.keys(doc.components.messages).length, 'every message read');
}
const docsCopy = JSON.parse(readFileSync(join(root, 'docs/events/asyncapi.json'), 'utf8'));
check(JSON.stringify(docsCopy) === JSON.stringify(doc),
  'docs/events/asyncapi.json is `svc asyncapi` (regenerate it: svc asyncapi > docs/events/asyncapi.json)');

// 2. The golden samples against their schemas, in the public form: the members the document's
// x-svc-unpublished-members names ("*Sealed": any name ending so) are not published.
const unpublished = doc['x-svc-unpublished-members'];
const isUnpublished = (k) => unpublished.some((u) => (u.startsWith('*') ? k.endsWith(u.slice(1)) : k === u));
const publicForm = (v) => {
  if (Array.isArray(v)) return v.map(publicForm);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([k]) => !isUnpublished(k)).map(([k, x]) => [k, publicForm(x)]));
  }
  return v;
};
const ajv = new Ajv({ strict: true, allErrors: true });
const byType = {};
for (const m of Object.values(doc.components.messages)) byType[m.name] = m;
const internal = new Set(doc['x-svc-internal-types']);
const golden = readFileSync(join(root, 'tests/commands/event_codecs.golden'), 'utf8').split('\n').filter(Boolean);
const seen = new Set();
let validated = 0;
for (const line of golden) {
  const space = line.indexOf(' ');
  const type = line.slice(0, space);
  const data = JSON.parse(line.slice(space + 1));
  seen.add(type);
  if (internal.has(type)) continue;
  const message = byType[type];
  check(message !== undefined, `${type} is in the document (or named internal)`);
  if (!message) continue;
  const name = `${type}.v${message['x-svc-schema-version']}`;
  const validate = ajv.getSchema(name) || (ajv.addSchema(doc.components.schemas[name], name), ajv.getSchema(name));
  const ok = validate(publicForm(data));
  if (!ok) console.error(`${type}: ${ajv.errorsText(validate.errors)} in ${line}`);
  check(ok, `${type}'s sample validates`);
  validated++;
}
check(validated > 100, `the golden samples were read (${validated})`);

// 3. Every release's schemas against today's.
const current = doc.components.schemas;
// Compared closed: an object admits only the members its version lists (additionalProperties:
// false added wherever a schema lists properties and says nothing else), i.e. the payloads each
// version's writer can produce. Open, as published, a schema "accepts" any value for a member it
// does not list, and adding any typed member would count as narrowing it.
const closed = (schema) => {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) =>
    [k, k === 'properties' ? Object.fromEntries(Object.entries(v).map(([n, x]) => [n, closed(x)])) : closed(v)]));
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
};
const narrowed = async (before, after) => (await jsonSchemaDiff.diffSchemas({
  sourceSchema: closed(before), destinationSchema: closed(after),
})).removalsFound;
const releases = readdirSync(join(root, 'docs/events/released')).filter((f) => f.endsWith('.json')).sort();
check(releases.length > 0, 'a release is kept');
for (const file of releases) {
  const release = JSON.parse(readFileSync(join(root, 'docs/events/released', file), 'utf8'));
  for (const [name, schema] of Object.entries(release.schemas)) {
    check(current[name] !== undefined, `${name} of release ${release.version} is still published`);
    if (current[name] === undefined) continue;
    check(!(await narrowed(schema, current[name])),
      `${name}: today's schema accepts every payload release ${release.version}'s did (not a breaking change)`);
  }
}

// 4. The gate catches a breaking change, and lets a compatible one through.
const sample = structuredClone(current['verification.session_created.v1']);
const retyped = structuredClone(sample);
retyped.properties.channel = { type: 'integer' };
check(await narrowed(sample, retyped), 'a member whose type changed is a breaking change');
const stricter = structuredClone(sample);
stricter.properties.newMember = { type: 'string' };
stricter.required = [...stricter.required, 'newMember'];
check(await narrowed(sample, stricter), 'a new required member is a breaking change');
const dropped = structuredClone(sample);
dropped.properties.locale = { type: 'null' };
check(await narrowed(sample, dropped), 'a member no longer written is a breaking change');
const removed = structuredClone(sample);
delete removed.properties.locale;
removed.required = removed.required.filter((m) => m !== 'locale');
check(await narrowed(sample, removed), 'a member removed is a breaking change');
const optional = structuredClone(sample);
optional.properties.newMember = { type: 'string' };
check(!(await narrowed(sample, optional)), 'a new optional member is compatible');

console.log(`AsyncAPI ${doc.asyncapi}: ${Object.keys(doc.channels).length} channels, ` +
  `${Object.keys(doc.components.messages).length} public event types, ${internal.size} internal; ` +
  `${validated} golden samples validated; ${releases.length} release(s) compared`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
