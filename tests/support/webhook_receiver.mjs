// A webhook receiver for the tests: a real HTTP(S) server on loopback whose paths answer the ways
// receivers do. Prints "port=<n>" once listening.
//   node webhook_receiver.mjs [--tls CERT KEY]
import http from "node:http";
import https from "node:https";
import fs from "node:fs";

const args = process.argv.slice(2);
const tls = args[0] === "--tls" ? { cert: fs.readFileSync(args[1]), key: fs.readFileSync(args[2]) } : null;

function handle(req, res) {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const path = req.url.split("?")[0];
    if (path === "/ok") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`ok ${Buffer.concat(chunks).length} ${req.headers["webhook-id"] ?? ""}`);
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
    } else if (path === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(1 << 20));
    } else {
      res.writeHead(404).end();
    }
  });
}

const server = tls ? https.createServer(tls, handle) : http.createServer(handle);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`port=${server.address().port}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
