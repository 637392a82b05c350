// Generates TypeScript types from svc's OpenAPI document with openapi-typescript (its Node API,
// so a `format: binary` string becomes a Blob, the one transform its documentation shows for
// file uploads). Usage: node gen.mjs <openapi.json> <out .d.ts>
import fs from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";

const [input, output] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(input, "utf8"));
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier("Blob"));
const NULL = ts.factory.createLiteralTypeNode(ts.factory.createNull());
const ast = await openapiTS(doc, {
  transform(schema) {
    if (schema.format === "binary") return schema.nullable ? ts.factory.createUnionTypeNode([BLOB, NULL]) : BLOB;
  },
});
fs.writeFileSync(output, astToString(ast));
console.log(`types for ${Object.keys(doc.paths).length} paths written to ${output}`);
