// Lints the OpenAPI document that `svc openapi` prints with two linters nobody here wrote:
// Redocly CLI (its recommended rules) and Spectral (the spectral:oas ruleset). Any problem, of any
// severity, fails: there is no ignore file. Usage: node lint.mjs <path to svc>
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const svc = process.argv[2];
if (!svc) {
  console.error('usage: node lint.mjs <path to svc>');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const file = join(mkdtempSync(join(tmpdir(), 'svc-openapi-')), 'openapi.json');
writeFileSync(file, execFileSync(svc, ['openapi'], { encoding: 'utf8' }));
const bin = (name) => join(here, 'node_modules', '.bin', name);
let failed = 0;

const redocly = spawnSync(bin('redocly'), ['lint', file, '--format=json'], { cwd: here, encoding: 'utf8' });
let report;
try {
  report = JSON.parse(redocly.stdout);
} catch (e) {
  console.error('redocly did not answer JSON:', redocly.stdout, redocly.stderr);
  process.exit(1);
}
const { errors, warnings } = report.totals;
if (errors + warnings > 0) {
  failed++;
  console.error(JSON.stringify(report.problems, null, 2));
}
console.log(`redocly lint (recommended): ${errors} errors, ${warnings} warnings`);

const spectral = spawnSync(bin('spectral'),
  ['lint', file, '--ruleset', join(here, '.spectral.yaml'), '--fail-severity=hint', '--format=text'],
  { cwd: here, encoding: 'utf8' });
if (spectral.status !== 0) {
  failed++;
  console.error(spectral.stdout, spectral.stderr);
}
console.log(`spectral lint (spectral:oas, every severity): ${spectral.status === 0 ? 'no problems' : 'problems'}`);

console.log(`${2 - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
