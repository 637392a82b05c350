// An integrator's program, typed from our OpenAPI document (openapi-typescript) and calling the
// service through openapi-fetch: the five-call verification, a person created and decrypted, a
// webhook endpoint, a company verified. tsc refuses it when the document's types and these calls
// disagree; at run time every answer is checked against the document's schema for its operation
// and status (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses), and an answer the types do not admit
// fails the run. Run by run.mjs; prints one JSON line.
import fs from "node:fs";
import createClient, { type Middleware } from "openapi-fetch";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { paths } from "svc-schema";

const [base, key, docPath, samples] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(docPath, "utf8"));
const out: { ok: boolean; checked: string[]; mismatches: string[]; calls: Record<string, unknown>; error?: string } = {
  ok: false, checked: [], mismatches: [], calls: {},
};

// ---- every answer against the document ----
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(doc, "openapi.json");
const templates = Object.keys(doc.paths).map((p) => ({
  template: p,
  re: new RegExp("^" + p.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+") + "$"),
}));
const pointer = (...parts: string[]) => parts.map((x) => x.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
const conform: Middleware = {
  async onResponse({ request, response }) {
    const url = new URL(request.url);
    const method = request.method.toLowerCase();
    const match = templates.find((t) => t.re.test(url.pathname) && doc.paths[t.template][method]);
    const label = `${request.method} ${match ? match.template : url.pathname} ${response.status}`;
    if (!match) {
      out.mismatches.push(`${label}: no operation in the document`);
      return response;
    }
    const responses = doc.paths[match.template][method].responses || {};
    const status = String(response.status);
    const declared = responses[status] ? status : responses.default ? "default" : null;
    if (!declared) {
      out.mismatches.push(`${label}: status not in the document`);
      return response;
    }
    const type = (response.headers.get("content-type") || "").split(";")[0].trim();
    const content = responses[declared].content || {};
    if (response.status === 204 || !Object.keys(content).length) return response;
    if (!content[type]) {
      out.mismatches.push(`${label}: content type ${type} not in the document`);
      return response;
    }
    const ref = "openapi.json#/" + pointer("paths", match.template, method, "responses", declared, "content", type, "schema");
    const validate = ajv.getSchema(ref);
    const body = await response.clone().json();
    if (!validate) {
      out.mismatches.push(`${label}: no schema at ${ref}`);
    } else if (!validate(body)) {
      out.mismatches.push(`${label}: ${ajv.errorsText(validate.errors)}`);
    } else {
      out.checked.push(label);
    }
    return response;
  },
};

const client = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${key}` } });
client.use(conform);
const file = (name: string, type: string) => new Blob([fs.readFileSync(`${samples}/${name}`)], { type });
const multipart = (body: Record<string, unknown>) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(body)) {
    if (v instanceof Blob) form.append(k, v, k === "file" ? "capture" : undefined);
    else if (v !== undefined) form.append(k, String(v));
  }
  return form;
};
const must = <T>(r: { data?: T; error?: unknown; response: Response }, what: string): T => {
  if (r.data === undefined) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
};

try {
  // 1. The five-call verification (sandbox outcome: approved).
  const session = must(await client.POST("/v1/verification-sessions", {
    params: { header: { "Idempotency-Key": "typed-1" } },
    body: { channel: "api", policy: { testOutcome: "approved" } },
  }), "create");
  const id = session.id;
  must(await client.POST("/v1/verification-sessions/{session_id}/consent", {
    params: { path: { session_id: id } }, body: { accepted: true },
  }), "consent");
  const captures: [("document_front" | "document_back" | "selfie" | "liveness_video"), string, string][] = [
    ["document_front", "front.jpg", "image/jpeg"], ["document_back", "back.jpg", "image/jpeg"],
    ["selfie", "selfie.jpg", "image/jpeg"], ["liveness_video", "video.mp4", "video/mp4"]];
  for (const [kind, name, type] of captures) {
    const media = must(await client.POST("/v1/verification-sessions/{session_id}/media", {
      params: { path: { session_id: id }, query: { analyze: kind === "document_front" } },
      body: { kind, file: file(name, type) },
      bodySerializer: multipart,
    }), kind);
    out.calls[kind] = media.status;
  }
  must(await client.POST("/v1/verification-sessions/{session_id}/submit", { params: { path: { session_id: id } } }), "submit");
  let status = "";
  for (let i = 0; i < 600 && !["approved", "declined", "review"].includes(status); i++) {
    const s = must(await client.GET("/v1/verification-sessions/{session_id}", { params: { path: { session_id: id } } }), "read");
    status = s.status;
    if (!["approved", "declined", "review"].includes(status)) await new Promise((r) => setTimeout(r, 50));
  }
  out.calls.verdict = status;
  const evidence = must(await client.GET("/v1/verification-sessions/{session_id}/evidence", {
    params: { path: { session_id: id } },
  }), "evidence");
  out.calls.evidenceDecision = evidence.decision?.outcome ?? null;

  // 2. A person created and decrypted.
  const person = must(await client.POST("/v1/persons", {
    params: { header: { "Idempotency-Key": "typed-p1", "Service-Version": "2026-01-01" } },
    body: { externalRef: "typed-1", pii: { curp: "PEPJ800101HDFRRN03", fullName: "José Pérez Núñez", email: "jose@example.mx" } },
  }), "person");
  const personId = person.id;
  const revealed = must(await client.POST("/v1/persons/{person_id}/decrypt", {
    params: { path: { person_id: personId }, header: { "Service-Version": "2026-01-01" } },
    body: { fields: ["curp", "fullName"], purpose: "identity_verification", reason: "typed client check" },
  }), "decrypt");
  out.calls.decrypted = Object.keys(revealed.fields ?? {}).sort();

  // 3. A webhook endpoint.
  const hook = must(await client.POST("/v1/developer/webhooks", {
    params: { header: { "Idempotency-Key": "typed-w1" } },
    body: { url: "http://127.0.0.1:9/svc-hooks", events: ["verification.*"] },
  }), "webhook");
  out.calls.webhookSecretShown = typeof hook.secret === "string" && hook.secret.length > 0;

  // 4. A company verified.
  const company = must(await client.POST("/v1/companies", {
    params: { header: { "Idempotency-Key": "typed-c1" } },
    body: { legalName: "Transportes del Pacífico Norte, S.A. de C.V." },
  }), "company");
  const verified = must(await client.POST("/v1/companies/{company_id}/verify", {
    params: { path: { company_id: company.id } },
  }), "verify company");
  out.calls.companyVerify = verified.status ?? null;

  out.ok = out.mismatches.length === 0;
} catch (e) {
  out.error = String((e as Error).stack || e);
}
process.stdout.write(JSON.stringify(out) + "\n");
