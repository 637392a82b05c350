// Validates the OpenAPI document that `svc openapi` prints, with @readme/openapi-parser (a
// maintained validator nobody here wrote). Usage: node validate.mjs <path to svc>
import { execFileSync } from 'node:child_process';
import { validate, compileErrors } from '@readme/openapi-parser';

const svc = process.argv[2];
if (!svc) {
  console.error('usage: node validate.mjs <path to svc>');
  process.exit(2);
}
const doc = JSON.parse(execFileSync(svc, ['openapi'], { encoding: 'utf8' }));
const result = await validate(doc);
if (!result.valid) {
  console.error(compileErrors(result));
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const operations = Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0);
if (result.warnings && result.warnings.length) console.error(JSON.stringify(result.warnings, null, 2));
console.log(`OpenAPI ${doc.openapi} document valid: ${operations} operations`);
console.log('1 passed, 0 failed');
