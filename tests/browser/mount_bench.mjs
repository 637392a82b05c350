// Benchmark (scripts/bench.d/widget.sh), not a test: the time from the integrator page's
// navigation to the widget's first interactive step (the consent checkbox), in headless Debian
// chromium, once per embedded session it is given (a clientSecret mounts once).
//   node mount_bench.mjs <svc base url>
//   -> "port N"   the integrator page on http://127.0.0.1:N
//   <- {"secrets": [...]}
//   -> {"runs": [ms, ...], "coldBytes": n, "warmBytes": n}
// coldBytes: what the service sent (headers and bodies, as transferred: gzip when it compresses)
// until the first step, on a cold cache; warmBytes: the same for a second mount in the same
// browser context (the cache warm: revalidations answered 304).
import http from "node:http";
import readline from "node:readline";
import { chromium } from "playwright-core";

const [base] = process.argv.slice(2);
const lines = readline.createInterface({ input: process.stdin });
const server = http.createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
  res.end(`<!doctype html><meta charset="utf-8"><script src="${base}/embed/v1/loader.js"></script><div id="kyc"></div>
<script>SvcEmbed.mount(document.getElementById("kyc"), {clientSecret: new URLSearchParams(location.search).get("s")});</script>`);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
process.stdout.write(`port ${server.address().port}\n`);
const { secrets } = JSON.parse(await new Promise((resolve) => lines.once("line", resolve)));
const browser = await chromium.launch({
  executablePath: process.env.SVC_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--use-fake-ui-for-media-stream",
         "--use-fake-device-for-media-stream", "--disable-background-networking", "--no-first-run"],
});
const runs = [];
let coldBytes = 0, warmBytes = 0;
// Bytes the service sent to a page until its first step (each response's headers and body as
// transferred), counted when each request finishes.
async function mountBytes(page, secret) {
  let bytes = 0;
  const pending = [];
  const count = (r) => {
    if (!r.url().startsWith(base)) return;
    pending.push(r.sizes().then((z) => { bytes += z.responseHeadersSize + z.responseBodySize; }).catch(() => {}));
  };
  page.on("requestfinished", count);
  await page.goto(`http://127.0.0.1:${server.address().port}/?s=${encodeURIComponent(secret)}`);
  await page.frameLocator("iframe").locator("#consent-check").waitFor({ timeout: 30000 });
  page.off("requestfinished", count);
  await Promise.all(pending);
  return bytes;
}
try {
  for (const s of secrets.slice(2)) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });  // cold cache each time
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(`http://127.0.0.1:${server.address().port}/?s=${encodeURIComponent(s)}`);
    await page.frameLocator("iframe").locator("#consent-check").waitFor({ timeout: 30000 });
    runs.push(Date.now() - t0);
    await context.close();
  }
  // The bytes: a cold mount, then a second one in the same context.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  coldBytes = await mountBytes(await context.newPage(), secrets[0]);
  warmBytes = await mountBytes(await context.newPage(), secrets[1]);
  await context.close();
} finally {
  await browser.close();
  server.close();
}
process.stdout.write(JSON.stringify({ runs, coldBytes, warmBytes }) + "\n");
