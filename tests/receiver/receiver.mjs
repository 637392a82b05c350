// A webhook receiver for the tests: a real HTTP(S) server on loopback whose paths answer the ways
// receivers do, and which checks every message's signature with the reference Standard Webhooks
// package (`standardwebhooks` from npm), a verifier nobody here wrote; `v1a` signatures (Ed25519,
// which that package does not know) with Node's own crypto, as the Standard Webhooks spec says:
// the public key "whpk_" + base64 of 32 bytes, each "v1a,<base64>" entry an Ed25519 signature of
// "{webhook-id}.{webhook-timestamp}.{body}", the timestamp within 5 minutes.
//
//   node receiver.mjs [--tls CERT KEY]        prints "port=<n>" once listening
//   stdin:  "secret whsec_…"  -> "ok"         a secret to verify with (any number)
//           "secret whpk_…"   -> "ok"         a v1a public key to verify with
//           "wait PATH N MS"  -> "ok"         once N messages arrived at PATH ("timeout" after MS)
//           "release"         -> "ok"         answers every held /hold request (and later ones)
//   GET /gw/curp/{curp}, POST /gw/ine/validate: a registry gateway (the https registry adapter)
//   GET /log -> [{path, id, type, body, verifiedBy: [index of each secret that verifies it], error,
//                 signatures, connection: the number of the connection it came on}]
// Messages are kept raw and verified when /log is read, with the secrets known then, each as of
// its arrival (the timestamp check).
import http from "node:http";
import https from "node:https";
import fs from "node:fs";
import readline from "node:readline";
import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";

// Throws unless one v1a entry of the message verifies with the public key `whpk`.
function verifyV1a(whpk, body, headers) {
  const id = headers["webhook-id"], ts = headers["webhook-timestamp"], sig = headers["webhook-signature"];
  if (!id || !ts || !sig) throw new Error("Missing required headers");
  if (!/^[0-9]+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) throw new Error("Invalid timestamp");
  const raw = Buffer.from(whpk.substring(5), "base64");
  if (!whpk.startsWith("whpk_") || raw.length !== 32) throw new Error("Invalid public key");
  const key = crypto.createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
  const content = Buffer.from(`${id}.${ts}.${body}`, "utf8");
  for (const entry of sig.split(" ")) {
    const [version, value] = entry.split(",");
    if (version === "v1a" && crypto.verify(null, content, key, Buffer.from(value ?? "", "base64"))) return;
  }
  throw new Error("No matching signature found");
}

const args = process.argv.slice(2);
const tls = args[0] === "--tls" ? { cert: fs.readFileSync(args[1]), key: fs.readFileSync(args[2]) } : null;
const secrets = [];
const received = [];
const connections = new WeakMap();
let connectionCount = 0;
let released = false;
const held = [];
const waiters = [];

function connectionOf(socket) {
  if (!connections.has(socket)) connections.set(socket, ++connectionCount);
  return connections.get(socket);
}

function countAt(path) {
  return received.filter((m) => m.path === path).length;
}

function wakeWaiters() {
  for (let i = waiters.length - 1; i >= 0; --i) {
    if (countAt(waiters[i].path) >= waiters[i].n) {
      clearTimeout(waiters[i].timer);
      waiters.splice(i, 1);
      process.stdout.write("ok\n");
    }
  }
}

// The reference package checks the timestamp against Date.now(): a message is verified as of its
// arrival (as a receiver verifies it), not as of the /log read, which in a long run comes more
// than the package's 5-minute tolerance after the first messages.
function verifyAsOf(at, fn) {
  const realNow = Date.now;
  Date.now = () => at;
  try {
    fn();
  } finally {
    Date.now = realNow;
  }
}

function log() {
  return received.map((m) => {
    const verifiedBy = [];
    let error = null;
    secrets.forEach((s, i) => {
      try {
        if (s.startsWith("whpk_")) verifyV1a(s, m.body, m.headers);
        else verifyAsOf(m.at, () => new Webhook(s).verify(m.body, m.headers));
        verifiedBy.push(i);
      } catch (e) {
        error = String(e.message ?? e);
      }
    });
    let type = null;
    try { type = JSON.parse(m.body).type; } catch { /* not JSON */ }
    return { path: m.path, id: m.headers["webhook-id"] ?? null, type, verifiedBy, error,
             signatures: (m.headers["webhook-signature"] ?? "").split(" ").filter((x) => x).length,
             connection: m.connection, body: m.body };
  });
}

function handle(req, res) {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const path = req.url.split("?")[0];
    const body = Buffer.concat(chunks).toString("utf8");
    if (req.method === "GET" && path === "/log") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(log()));
      return;
    }
    received.push({ path, body, headers: { ...req.headers }, connection: connectionOf(req.socket), at: Date.now() });
    wakeWaiters();
    if (path === "/ok") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`ok ${Buffer.byteLength(body)} ${req.headers["webhook-id"] ?? ""}`);
    } else if (path === "/gone") {
      res.writeHead(410).end();
    } else if (path === "/bad") {
      res.writeHead(400).end("no");
    } else if (path === "/retry") {
      res.writeHead(503, { "retry-after": "7" }).end();
    } else if (path === "/slow") {
      setTimeout(() => res.writeHead(200).end("late"), 3000);
    } else if (path === "/close") {
      req.socket.destroy();
    } else if (path === "/ok-then-drop") {
      // Answers (keep-alive), then drops the connection: a kept connection that is gone.
      res.on("finish", () => req.socket.destroy());
      res.writeHead(200).end(String(connectionOf(req.socket)));
    } else if (path === "/conn") {
      res.writeHead(200).end(String(connectionOf(req.socket)));  // which connection it came on
    } else if (path === "/hold") {
      if (released) res.writeHead(200).end("ok");
      else held.push(res);
    } else if (path === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(1 << 20));
    } else if (path.startsWith("/gw/curp/")) {
      // A registry gateway's CURP lookup (docs/verification-pipeline.md), for the https adapter.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ curp: path.substring(9), statusCurp: "AN", fechaNacimiento: "15/03/1990",
                               sexo: "M", primerApellido: "GARCIA", segundoApellido: "HERNANDEZ",
                               nombres: "MARIA JOSEFINA", authorization: req.headers.authorization ?? null }));
    } else if (path === "/gw/ine/validate") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ valid: JSON.parse(body).cic === "123456789", reason: null }));
    } else {
      res.writeHead(404).end();
    }
  });
}

const server = tls ? https.createServer(tls, handle) : http.createServer(handle);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`port=${server.address().port}\n`);
});
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.startsWith("secret ")) {
    secrets.push(line.substring(7).trim());
    process.stdout.write("ok\n");
  } else if (line.startsWith("wait ")) {
    const [, path, n, ms] = line.split(" ");
    const waiter = { path, n: Number(n) };
    waiter.timer = setTimeout(() => {
      waiters.splice(waiters.indexOf(waiter), 1);
      process.stdout.write("timeout\n");
    }, Number(ms));
    waiters.push(waiter);
    wakeWaiters();
  } else if (line === "release") {
    released = true;
    for (const res of held.splice(0)) res.writeHead(200).end("ok");
    process.stdout.write("ok\n");
  }
});
lines.on("close", () => process.exit(0));
