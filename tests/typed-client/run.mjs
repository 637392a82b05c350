// The typed client's run: types generated from the document `svc openapi` prints, the client
// type-checked and compiled by tsc (a type error fails the run), then run against a live svc.
//   node run.mjs <svc binary> <base url> <api key> <samples dir> <work dir>
//   -> one JSON line: {ok, typeErrors, checked, mismatches, calls, error}
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [svc, base, key, samples, work] = process.argv.slice(2);
fs.mkdirSync(work, { recursive: true });
const docPath = path.join(work, "openapi.json");
fs.writeFileSync(docPath, execFileSync(svc, ["openapi"], { encoding: "utf8", maxBuffer: 64 << 20 }));
execFileSync("node", [path.join(here, "gen.mjs"), docPath, path.join(work, "schema.d.ts")], { stdio: ["ignore", "ignore", "inherit"] });
const link = path.join(work, "node_modules");
if (!fs.existsSync(link)) fs.symlinkSync(path.join(here, "node_modules"), link, "dir");
fs.writeFileSync(path.join(work, "tsconfig.json"), JSON.stringify({
  compilerOptions: {
    target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmitOnError: true,
    skipLibCheck: true, lib: ["ES2022", "DOM"], outDir: "build", rootDir: "/", baseUrl: ".",
    paths: { "svc-schema": ["./schema.d.ts"] }, types: ["node"], typeRoots: [path.join(here, "node_modules/@types")],
  },
  files: [path.join(here, "client.ts"), path.join(work, "schema.d.ts")],
}));
const tsc = spawnSync("node", [path.join(here, "node_modules/typescript/bin/tsc"), "-p", path.join(work, "tsconfig.json"), "--pretty", "false"],
  { encoding: "utf8" });
if (tsc.status !== 0) {
  process.stdout.write(JSON.stringify({ ok: false, typeErrors: (tsc.stdout + tsc.stderr).split("\n").filter(Boolean) }) + "\n");
  process.exit(0);
}
const compiled = path.join(work, "build", here, "client.js");
const run = spawnSync("node", [compiled, base, key, docPath, samples], { encoding: "utf8", maxBuffer: 16 << 20 });
const line = run.stdout.trim().split("\n").pop() || "{}";
let result;
try { result = JSON.parse(line); } catch { result = { ok: false, error: run.stdout + run.stderr }; }
result.typeErrors = [];
process.stdout.write(JSON.stringify(result) + "\n");
