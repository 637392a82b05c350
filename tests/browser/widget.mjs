// The embedded widget in a real browser: Debian's chromium driven by playwright-core (npm), with a
// fake camera fed by a video ffmpeg made from a real face photograph. Run by
// tests/integration/embedded_widget_test.cc against a real svc; it talks to it over stdin/stdout:
//
//   node widget.mjs <svc base url> <screenshot dir> <samples dir>
//   -> "port N"          the integrator's page is served on http://127.0.0.1:N (another origin)
//   <- {"secret": …, "blocked": …, "camera": …, "link": …, "efirma": {link, cer, key, password}}
//                        a session allowing http://127.0.0.1:N, one that does not allow
//                        http://localhost:N, the fake camera's file, the link token of a link
//                        session (its hosted page), and a link session asking for the e.firma
//                        with the files and password of a FIEL to sign it with; `file`: a link
//                        session whose flow's liveness step allows a file, and the video to choose
//   -> {"...": ...}      one JSON line: what the pages saw (events, timings, third-party
//                        requests, console and page errors)
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import readline from "node:readline";
import { chromium } from "playwright-core";
import { axeViolations } from "./axe.mjs";

const [base, shots, samples] = process.argv.slice(2);
const lines = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once("line", resolve));
const out = { ok: false, thirdParty: [], consoleErrors: [], pageErrors: [], steps: [], axe: {} };

// The integrator's page: includes the loader from the service and mounts the widget.
const server = http.createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
  if (req.url.startsWith("/done")) return res.end("<!doctype html><title>Gracias</title><p>Gracias</p>");
  res.end(`<!doctype html><html lang="es"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Tienda Ejemplo</title>
<script src="${base}/embed/v1/loader.js"></script></head>
<body style="margin:0;font-family:sans-serif"><h1 style="font-size:16px;margin:8px">Tienda Ejemplo · abre tu cuenta</h1>
<div id="kyc"></div>
<script>
  window.events = [];
  window.mountedAt = performance.now();
  SvcEmbed.mount(document.getElementById("kyc"), {
    clientSecret: new URLSearchParams(location.search).get("s"), locale: "es",
    onEvent: (e) => { window.events.push(e); if (e.type === "step" && window.firstStepAt === undefined) window.firstStepAt = performance.now(); },
  });
</script></body></html>`);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = server.address().port;
process.stdout.write(`port ${port}\n`);
const { secret, blocked, camera, link, efirma, file } = JSON.parse(await nextLine());

const browser = await chromium.launch({
  executablePath: process.env.SVC_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--use-fake-ui-for-media-stream",
         "--use-fake-device-for-media-stream", `--use-file-for-fake-video-capture=${camera}`,
         "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
const integrator = `http://127.0.0.1:${port}`;
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.setDefaultTimeout(60000);
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(base) && !u.startsWith(integrator) && !u.startsWith("blob:") && !u.startsWith("data:")) out.thirdParty.push(u);
  });
  let refusedUploads = 0;  // the file that is no image, below: the one expected failed request
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    if (m.text().includes("422") && /\/media(\?|$)/.test(m.location().url) && refusedUploads++ === 0) return;
    out.consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => out.pageErrors.push(String(e)));

  const started = Date.now();
  await page.goto(`${integrator}/?s=${encodeURIComponent(secret)}`);
  const frame = page.frameLocator("iframe");
  await frame.locator("#consent-check").waitFor();
  out.mountToFirstStepMs = Date.now() - started;
  out.firstStepInPageMs = await page.evaluate(() => window.firstStepAt - window.mountedAt);
  const frameResponse = await page.evaluate(() => document.querySelector("iframe").src);
  out.frameUrl = frameResponse;
  out.consentLabel = await frame.locator("label[for=consent-check]").textContent();
  out.consentIntegrator = await frame.locator("#consent-integrator").textContent();
  out.privacyNoticeHref = await frame.locator("#privacy-notice").getAttribute("href");
  out.privacyNoticeText = await frame.locator("#privacy-notice").textContent();
  const shot = async (name) => {
    await page.screenshot({ path: `${shots}/embedded-${name}.png` });
    out.steps.push(name);
  };
  const waitStep = (step) => page.waitForFunction((s) => window.events.some((e) => e.type === "step" && e.step === s), step);
  await shot("consent");
  // The frame the loader mounted fits its content: the widget tells the loader its height.
  await page.waitForFunction(() => document.querySelector("iframe").style.height !== "640px");
  out.frameHeight = await page.evaluate(() => document.querySelector("iframe").style.height);
  const widgetFrame = page.frame({ url: /\/embed\/v1\/frame\// });
  out.axe.consent = await axeViolations(widgetFrame);
  await frame.locator("#consent-check").check();
  await frame.locator("#consent-accept").click();

  // Document: front and back from files (the person's photos of their INE).
  await waitStep("document_front");
  await frame.locator("#step-title").waitFor();
  await shot("document-front");
  // A file that is no image: the service refuses it, the page says so in Spanish with what to do
  // (never the service's English detail), and the step stays.
  await frame.locator("#file").setInputFiles({ name: "ine.jpg", mimeType: "image/jpeg", buffer: Buffer.from("not a photo at all") });
  await frame.locator("#status.error").waitFor();
  out.badFileMessage = await frame.locator("#status").textContent();
  out.badFileCode = await frame.locator("#status").getAttribute("data-code");
  out.axe.badFile = await axeViolations(widgetFrame);
  await frame.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await waitStep("document_back");
  await shot("document-back");
  await frame.locator("#file").setInputFiles(`${samples}/back.jpg`);

  // Selfie and liveness from the (fake) camera.
  await waitStep("selfie");
  await frame.locator("#take:not([disabled])").waitFor();
  await shot("selfie");
  await frame.locator("#take").click();
  await waitStep("liveness");
  await frame.locator("#record:not([disabled])").waitFor();
  await shot("liveness");
  out.livenessFilePickers = await frame.locator("input[type=file]").count();  // camera only
  await frame.locator("#record").click();
  await waitStep("submit");
  await shot("submit");
  await frame.locator("#submit").click();
  await page.waitForFunction(() => window.events.some((e) => e.type === "completed"));
  await frame.locator("#outcome").waitFor();
  await shot("outcome");
  out.axe.outcome = await axeViolations(widgetFrame);
  out.outcome = await frame.locator("#outcome").getAttribute("data-status");
  out.progress = await frame.locator("#progress li").evaluateAll((items) => items.map((li) => li.getAttribute("aria-label")));
  out.events = await page.evaluate(() => window.events);
  out.frameLang = await frame.locator("html").getAttribute("lang");

  // Another origin, not among the session's: the browser refuses to frame the widget.
  const other = await context.newPage();
  const refused = new Promise((resolve) => {
    other.on("console", (m) => { if (m.text().includes("frame-ancestors")) resolve(m.text()); });
  });
  await other.goto(`http://localhost:${port}/?s=${encodeURIComponent(blocked)}`);
  out.blockedMessage = await refused;
  out.blockedEvents = await other.evaluate(() => window.events);
  await other.screenshot({ path: `${shots}/embedded-blocked.png` });

  // The hosted page of a link session: the same capture page, full screen, in English, walked to
  // the end; its Continue goes back to the session's redirectUrl with the session and status.
  const hosted = await context.newPage();
  hosted.on("console", (m) => { if (m.type() === "error") out.consoleErrors.push(`${m.text()} (${m.location().url})`); });
  hosted.on("pageerror", (e) => out.pageErrors.push(String(e)));
  await hosted.goto(`${base}/v/${encodeURIComponent(link)}?locale=en`);
  await hosted.locator("#consent-check").waitFor();
  out.hostedTitle = await hosted.locator("#step-title").textContent();
  out.hostedLang = await hosted.locator("html").getAttribute("lang");
  await hosted.screenshot({ path: `${shots}/embedded-hosted.png` });
  out.axe.hosted = await axeViolations(hosted);
  await hosted.locator("#consent-check").check();
  await hosted.locator("#consent-accept").click();
  await hosted.locator("#step-title", { hasText: "Front of your ID" }).waitFor();
  await hosted.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await hosted.locator("#step-title", { hasText: "Back of your ID" }).waitFor();
  await hosted.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await hosted.locator("#submit").click();
  await hosted.locator("#continue").waitFor();
  out.hostedOutcome = await hosted.locator("#outcome").getAttribute("data-status");
  await hosted.locator("#continue").click();
  await hosted.waitForURL(/verificationSessionId=/);
  out.hostedReturn = hosted.url();

  // A flow whose passive liveness allows a file: the step offers one, says a person will check
  // it, and the session so sent goes to review (the upload says captureSource "file").
  const chooser = await context.newPage();
  chooser.on("console", (m) => { if (m.type() === "error") out.consoleErrors.push(`${m.text()} (${m.location().url})`); });
  chooser.on("pageerror", (e) => out.pageErrors.push(String(e)));
  await chooser.goto(`${base}/v/${encodeURIComponent(file.link)}`);
  await chooser.locator("#consent-check").check();
  await chooser.locator("#consent-accept").click();
  await chooser.locator("#record").waitFor();
  out.fileNote = await chooser.locator("#file-note").textContent();
  out.axe.livenessFile = await axeViolations(chooser);
  await chooser.locator("#file").setInputFiles(file.video);
  await chooser.locator("#submit").click();
  await chooser.locator("#outcome").waitFor();
  out.fileOutcome = await chooser.locator("#outcome").getAttribute("data-status");

  // The e.firma step. The node-forge the service serves is the npm package's file, byte for byte.
  const sha = (b) => crypto.createHash("sha256").update(b).digest("hex");
  const served = Buffer.from(await (await fetch(`${base}/embed/v1/vendor/forge-1.4.3.min.js`)).arrayBuffer());
  const published = fs.readFileSync(new URL("./node_modules/node-forge/dist/forge.min.js", import.meta.url));
  out.forgeMatchesNpm = sha(served) === sha(published);
  const signer = await context.newPage();
  signer.on("console", (m) => { if (m.type() === "error") out.consoleErrors.push(`${m.text()} (${m.location().url})`); });
  signer.on("pageerror", (e) => out.pageErrors.push(String(e)));
  // What leaves the page: no request may carry the password or the private key.
  const keyBytes = fs.readFileSync(efirma.key);
  const secrets = [efirma.password, keyBytes.toString("base64"), keyBytes.toString("base64url"), keyBytes.toString("hex")];
  out.efirmaLeaks = [];
  let efirmaCalls = 0;
  signer.on("request", (r) => {
    if (r.url().includes("/efirma")) efirmaCalls += 1;
    const body = r.postDataBuffer();
    const text = body ? body.toString("latin1") : "";
    for (const x of secrets) if (text.includes(x) || r.url().includes(x)) out.efirmaLeaks.push(r.url());
    if (body && body.includes(keyBytes.subarray(0, 64))) out.efirmaLeaks.push(r.url());
  });
  const init = signer.waitForResponse((r) => r.url().endsWith("/embed/v1/hosted/init"));
  await signer.goto(`${base}/v/${encodeURIComponent(efirma.link)}`);
  out.efirmaSteps = (await (await init).json()).flow.steps;
  await signer.locator("#consent-check").check();
  await signer.locator("#consent-accept").click();
  await signer.locator("#step-title", { hasText: "Frente de tu identificación" }).waitFor();
  await signer.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await signer.locator("#step-title", { hasText: "Reverso de tu identificación" }).waitFor();
  await signer.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await signer.locator("#efirma-cer").waitFor();
  await signer.locator("#efirma-cer").setInputFiles(efirma.cer);
  await signer.locator("#efirma-key").setInputFiles(efirma.key);
  await signer.locator("#efirma-password").fill("not-the-password");
  await signer.screenshot({ path: `${shots}/embedded-efirma.png` });
  out.axe.efirma = await axeViolations(signer);
  await signer.locator("#efirma-sign").click();
  await signer.locator("#status.error").waitFor();
  out.efirmaBadPassword = await signer.locator("#status").textContent();
  out.efirmaCallsBeforeKeyOpened = efirmaCalls;
  await signer.locator("#efirma-password").fill(efirma.password);
  const answered = signer.waitForResponse((r) => /\/efirma$/.test(new URL(r.url()).pathname));
  await signer.locator("#efirma-sign").click();
  out.efirmaEvent = await (await answered).json();
  await signer.locator("#submit").click();
  await signer.locator("#outcome").waitFor();
  out.efirmaOutcome = await signer.locator("#outcome").getAttribute("data-status");
  await signer.screenshot({ path: `${shots}/embedded-efirma-outcome.png` });
  // A link that is no session's: a message in Spanish with what to do, and no "Cargando…" left.
  const stale = await context.newPage();
  stale.on("pageerror", (e) => out.pageErrors.push(String(e)));
  await stale.goto(`${base}/v/lnk_${"0".repeat(32)}`);
  await stale.locator("#status.error").waitFor();
  out.badLinkMessage = await stale.locator("#status").textContent();
  out.badLinkCode = await stale.locator("#status").getAttribute("data-code");
  out.badLinkLoading = await stale.locator("#loading").count();
  out.axe.badLink = await axeViolations(stale);
  out.ok = true;
} catch (e) {
  out.error = String(e && e.stack || e);
} finally {
  await browser.close();
  server.close();
  process.stdout.write(JSON.stringify(out) + "\n");
}
