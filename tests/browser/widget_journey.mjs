// The applicant's returns (issue 69, items 1–3) in a real browser (Debian's chromium, playwright-core):
// a hosted link whose first submission was answered "more information" is opened again, lands on
// the captures (never the consent again), is resubmitted, and shows — and sends to the
// integrator's redirectUrl — the new verdict, not the stale one; a link opened again after the end
// or while in review shows where the session is; the embedded widget's frame, reloaded, resumes
// (it never stays on "Cargando…"). Run by tests/integration/embedded_widget_test.cc:
//
//   node widget_journey.mjs <svc base url> <samples dir>
//   -> "port N"    the integrator's page on http://127.0.0.1:N (another origin)
//   <- {"moreInfo": link token, "review": link token, "video": a recording, "secret": embedded clientSecret,
//       "secretMoreInfo": an embedded session's clientSecret whose first submission gets "more information",
//       "efirma": {link, cer, key, password} (a link session asking for an e.firma, and an expired one),
//       "handoff": {link, camera} (a link session with every capture, and the phone's fake camera)}
//   -> {"...": ...} one JSON line: what the pages showed
import http from "node:http";
import readline from "node:readline";
import { chromium } from "playwright-core";
import { axeViolations } from "./axe.mjs";
import { contrastOfFocus } from "./contrast.mjs";

const [base, samples] = process.argv.slice(2);
const lines = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once("line", resolve));
const out = { ok: false, pageErrors: [], consoleErrors: [], axe: {} };

const server = http.createServer((req, res) => {
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
  if (req.url.startsWith("/done")) return res.end("<!doctype html><title>Gracias</title><p>Gracias</p>");
  res.end(`<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Tienda</title>
<script src="${base}/embed/v1/loader.js"></script></head><body><div id="kyc"></div>
<script>
  window.events = [];
  SvcEmbed.mount(document.getElementById("kyc"), {
    clientSecret: new URLSearchParams(location.search).get("s"), locale: "es", onEvent: (e) => window.events.push(e) });
</script></body></html>`);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = server.address().port;
process.stdout.write(`port ${port}\n`);
const input = JSON.parse(await nextLine());

const browser = await chromium.launch({
  executablePath: process.env.SVC_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"],
});
const watchErrors = (p) => {
  p.on("pageerror", (e) => out.pageErrors.push(String(e)));
  p.on("console", (m) => { if (m.type() === "error") out.consoleErrors.push(`${m.text()} (${m.location().url})`); });
};
// The document's two sides from files, then submit; the outcome shown.
async function walkDocument(p) {
  await p.locator("#step-title", { hasText: "Frente de tu identificación" }).waitFor();
  await p.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await p.locator("#step-title", { hasText: "Reverso de tu identificación" }).waitFor();
  await p.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await p.locator("#submit").click();
  await p.locator("#outcome").waitFor();
  return p.locator("#outcome").getAttribute("data-status");
}
// The page as a link opens it: what it shows first, once it has loaded.
async function opened(p, url) {
  await p.goto(url);
  await p.locator("#step-title").waitFor();
  return {
    title: await p.locator("#step-title").textContent(),
    consent: await p.locator("#consent-check").count(),
    outcome: await p.locator("#outcome").count() ? await p.locator("#outcome").getAttribute("data-status") : null,
    error: await p.locator("#status.error").count(),
    loading: await p.locator("#loading").count(),
  };
}

try {
  // A phone's viewport for most states; a computer's for the reviewer's request and the handoff.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // 1. More information, then the resubmission's own verdict.
  const p = await context.newPage();
  p.setDefaultTimeout(60000);
  watchErrors(p);
  const link = `${base}/v/${encodeURIComponent(input.moreInfo)}`;
  await p.goto(link);
  await p.locator("#consent-check").focus();
  out.focusContrast = await p.evaluate(contrastOfFocus);
  await p.locator("#consent-check").check();
  await p.locator("#consent-accept").click();
  out.firstOutcome = await walkDocument(p);
  out.firstAsked = await p.locator("#outcome-asked").textContent();
  out.firstWords = await p.locator("#outcome-message").count();
  out.reopened = await opened(p, link);
  out.reopenedSays = await p.locator("#asked").textContent();
  // Only the capture the verdict asked for (the back), then submit (item 5).
  await p.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await p.locator("#submit").click();
  await p.locator("#outcome").waitFor();
  out.secondOutcome = await p.locator("#outcome").getAttribute("data-status");
  out.secondReturn = await p.locator("#continue").getAttribute("href");
  out.axe.resubmitted = await axeViolations(p);
  // 2. Opened again after the end: the outcome, nothing asked.
  out.afterEnd = await opened(p, link);
  out.afterEndReturn = await p.locator("#continue").getAttribute("href");
  out.axe.afterEnd = await axeViolations(p);
  // 2. Opened again while a reviewer has it.
  const r = await context.newPage();
  r.setDefaultTimeout(60000);
  watchErrors(r);
  const reviewLink = `${base}/v/${encodeURIComponent(input.review)}`;
  await r.goto(reviewLink);
  await r.locator("#consent-check").check();
  await r.locator("#consent-accept").click();
  await r.locator("#record").waitFor();
  await r.locator("#file").setInputFiles(input.video);  // a recording from a file: a person checks it
  await r.locator("#submit").click();
  await r.locator("#outcome").waitFor();
  out.reviewOutcome = await r.locator("#outcome").getAttribute("data-status");
  out.inReview = await opened(r, reviewLink);
  out.reviewText = await r.locator("#outcome-text").textContent();
  out.reviewMark = await r.locator("#outcome .mark").textContent();
  // 5. A reviewer asked for both sides again, with words for the applicant: the link lands on the
  // front, says what is asked and shows the words as written.
  const q = await desktop.newPage();
  q.setDefaultTimeout(60000);
  watchErrors(q);
  out.reviewerAsked = await opened(q, `${base}/v/${encodeURIComponent(input.reviewerAsked)}`);
  out.reviewerAskedSays = await q.locator("#asked").textContent();
  out.reviewerWords = await q.locator("#asked-message blockquote").textContent();
  out.axe.reviewerAsked = await axeViolations(q);
  out.reviewerAskedWidth = await q.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
  await q.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await q.locator("#step-title", { hasText: "Reverso de tu identificación" }).waitFor();
  await q.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await q.locator("#submit").click();
  await q.locator("#outcome").waitFor();
  out.reviewerAskedOutcome = await q.locator("#outcome").getAttribute("data-status");
  // 6. An e.firma refused: each reason in words with what to do, never a raw code; going on
  // without it asks first. Then 7: the decline says what a person can act on.
  const s = await context.newPage();
  s.setDefaultTimeout(60000);
  watchErrors(s);
  await s.goto(`${base}/v/${encodeURIComponent(input.efirma.link)}`);
  await s.locator("#consent-check").check();
  await s.locator("#consent-accept").click();
  await s.locator("#step-title", { hasText: "Frente de tu identificación" }).waitFor();
  await s.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await s.locator("#step-title", { hasText: "Reverso de tu identificación" }).waitFor();
  await s.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await s.locator("#efirma-cer").setInputFiles(input.efirma.cer);
  await s.locator("#efirma-key").setInputFiles(input.efirma.key);
  await s.locator("#efirma-password").fill(input.efirma.password);
  await s.locator("#efirma-sign").click();
  await s.locator("#efirma-reasons li").first().waitFor();
  out.efirmaRefusal = {
    reasons: await s.locator("#efirma-reasons li").allTextContents(),
    codes: await s.locator("#efirma-reasons li").evaluateAll((items) => items.map((li) => li.dataset.code)),
    status: await s.locator("#status").textContent(),
    rawCodeShown: (await s.locator("body").innerText()).includes("EFIRMA_"),
    signAgain: await s.locator("#efirma-sign").textContent(),
  };
  await s.locator("#efirma-continue").click();
  await s.locator("#efirma-confirm").waitFor();
  out.efirmaAsk = await s.locator("#efirma-ask").textContent();
  out.submitBeforeConfirm = await s.locator("#submit").count();
  out.axe.efirmaRefused = await axeViolations(s);
  await s.locator("#efirma-continue-confirm").click();
  await s.locator("#submit").click();
  await s.locator("#outcome").waitFor();
  out.efirmaOutcome = await s.locator("#outcome").getAttribute("data-status");
  out.declinedText = await s.locator("#outcome-text").textContent();
  out.axe.declined = await axeViolations(s);
  // 3. The embedded widget's frame reloaded after the consent: it resumes at the document.
  const shop = await context.newPage();
  shop.setDefaultTimeout(60000);
  watchErrors(shop);
  await shop.goto(`http://127.0.0.1:${port}/?s=${encodeURIComponent(input.secret)}`);
  const frame = shop.frameLocator("iframe");
  await frame.locator("#consent-check").check();
  await frame.locator("#consent-accept").click();
  await frame.locator("#step-title", { hasText: "Frente de tu identificación" }).waitFor();
  const widget = shop.frame({ url: /\/embed\/v1\/frame\// });
  await widget.evaluate(() => location.reload());
  await frame.locator("#step-title", { hasText: "Frente de tu identificación" }).waitFor();
  out.reloaded = {
    title: await frame.locator("#step-title").textContent(),
    consent: await frame.locator("#consent-check").count(),
    loading: await frame.locator("#loading").count(),
    error: await frame.locator("#status.error").count(),
  };
  out.reloadEvents = (await shop.evaluate(() => window.events)).map((e) => e.type);
  // To the end inside the shop's page: no "close this window" there (item 7).
  await frame.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await frame.locator("#step-title", { hasText: "Reverso de tu identificación" }).waitFor();
  await frame.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await frame.locator("#submit").click();
  await frame.locator("#outcome").waitFor();
  out.framedOutcome = await frame.locator("#outcome").getAttribute("data-status");
  out.framedNext = await frame.locator("#outcome-next").textContent();
  // 1, in the embedded widget: "more information", the frame reloaded, the back again, and the
  // parent page hears the new verdict.
  const shop2 = await context.newPage();
  shop2.setDefaultTimeout(60000);
  watchErrors(shop2);
  await shop2.goto(`http://127.0.0.1:${port}/?s=${encodeURIComponent(input.secretMoreInfo)}`);
  const frame2 = shop2.frameLocator("iframe");
  await frame2.locator("#consent-check").check();
  await frame2.locator("#consent-accept").click();
  await frame2.locator("#step-title", { hasText: "Frente de tu identificación" }).waitFor();
  await frame2.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await frame2.locator("#step-title", { hasText: "Reverso de tu identificación" }).waitFor();
  await frame2.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await frame2.locator("#submit").click();
  await frame2.locator("#outcome").waitFor();
  out.embeddedFirst = await frame2.locator("#outcome").getAttribute("data-status");
  await shop2.frame({ url: /\/embed\/v1\/frame\// }).evaluate(() => location.reload());
  await frame2.locator("#asked").waitFor();
  out.embeddedReopened = await frame2.locator("#step-title").textContent();
  await frame2.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await frame2.locator("#submit").click();
  await frame2.locator("#outcome[data-status=approved]").waitFor();
  out.embeddedCompleted = (await shop2.evaluate(() => window.events)).filter((e) => e.type === "completed").map((e) => e.status);

  // 8. A computer without a camera hands the session to a phone: a QR code and a link; the phone
  // (a browser with a camera) opens it where the session is and finishes; the computer shows the
  // phone's verdict.
  const desk = await desktop.newPage();
  desk.setDefaultTimeout(60000);
  watchErrors(desk);
  await desk.goto(`${base}/v/${encodeURIComponent(input.handoff.link)}`);
  await desk.locator("#consent-check").check();
  await desk.locator("#consent-accept").click();
  await desk.locator("#step-title", { hasText: "Frente de tu identificación" }).waitFor();
  await desk.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await desk.locator("#step-title", { hasText: "Reverso de tu identificación" }).waitFor();
  await desk.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await desk.locator("#step-title", { hasText: "Tu rostro" }).waitFor();
  await desk.locator("#file").setInputFiles(`${samples}/selfie.jpg`);
  await desk.locator("#handoff").waitFor();
  await desk.locator("#camera-again").waitFor();  // no camera here: try again, or the phone
  out.deskNoCamera = await desk.locator("#status").textContent();
  await desk.locator("#handoff").click();
  await desk.locator("#handoff-qr").waitFor();
  await desk.waitForFunction(() => document.getElementById("handoff-qr").naturalWidth > 0);
  out.handoffLink = await desk.locator("#handoff-link").getAttribute("href");
  out.handoffQrAlt = await desk.locator("#handoff-qr").getAttribute("alt");
  out.axe.handoff = await axeViolations(desk);
  const phoneBrowser = await chromium.launch({
    executablePath: process.env.SVC_CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--use-fake-ui-for-media-stream",
           "--use-fake-device-for-media-stream", `--use-file-for-fake-video-capture=${input.handoff.camera}`,
           "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  try {
    const phone = await (await phoneBrowser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    phone.setDefaultTimeout(60000);
    watchErrors(phone);
    await phone.goto(out.handoffLink);
    await phone.locator("#step-title").waitFor();
    out.phoneOpened = { title: await phone.locator("#step-title").textContent(), consent: await phone.locator("#consent-check").count() };
    await phone.locator("#record:not([disabled])").waitFor();
    await phone.locator("#record").click();
    await phone.locator("#submit").click();
    await phone.locator("#outcome").waitFor();
    out.phoneOutcome = await phone.locator("#outcome").getAttribute("data-status");
    // The link opens once.
    const again = await (await phoneBrowser.newContext()).newPage();
    await again.goto(out.handoffLink);
    await again.locator("#status.error").waitFor();
    out.handoffAgain = await again.locator("#status").getAttribute("data-code");
  } finally {
    await phoneBrowser.close();
  }
  await desk.locator("#outcome").waitFor();
  out.deskOutcome = await desk.locator("#outcome").getAttribute("data-status");
  out.ok = true;
} catch (e) {
  out.error = String((e && e.stack) || e);
} finally {
  await browser.close();
  server.close();
  process.stdout.write(JSON.stringify(out) + "\n");
}
