// The capture guidance in a real browser: a link session's hosted page against a svc running the
// dlib engine, walked in chromium with a fake camera (ffmpeg-made from a real face photograph).
// A blurred photo of the document's front is refused with its hint (Spanish) and the retake is
// accepted; every photo is sent with ?analyze=true and the captures carry captureFacts. Run by
// tests/integration/embedded_widget_test.cc:
//
//   node widget_guidance.mjs <svc base url> <link token> <samples dir> <blurred front> <camera y4m> <screenshot dir>
//   -> {"...": ...}   one JSON line: the analysed uploads in order ({kind, issues, facts}), the
//                     refusal's hints, the outcome, console and page errors
import { chromium } from "playwright-core";
import { axeViolations } from "./axe.mjs";

const [base, link, samples, blurred, camera, shots] = process.argv.slice(2);
const out = { ok: false, uploads: [], consoleErrors: [], pageErrors: [], axe: {} };
const browser = await chromium.launch({
  executablePath: process.env.SVC_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--use-fake-ui-for-media-stream",
         "--use-fake-device-for-media-stream", `--use-file-for-fake-video-capture=${camera}`,
         "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.setDefaultTimeout(90000);
  page.on("console", (m) => { if (m.type() === "error") out.consoleErrors.push(`${m.text()} (${m.location().url})`); });
  page.on("pageerror", (e) => out.pageErrors.push(String(e)));
  // What each upload said (the form's text fields, read in the page: the browser does not hand
  // a multipart body with a file to the test) and what the service answered.
  await page.addInitScript(() => {
    window.__uploads = [];
    const send = window.fetch;
    window.fetch = (input, init) => {
      if (init && init.body instanceof FormData && String(input).includes("/media")) {
        const fields = {};
        for (const [k, v] of init.body.entries()) if (typeof v === "string") fields[k] = v;
        window.__uploads.push(fields);
      }
      return send(input, init);
    };
  });
  page.on("response", async (r) => {
    if (!r.url().includes("/media")) return;
    const j = await r.json().catch(() => ({}));
    const a = j.analysis || {};
    out.answers = out.answers || [];
    out.answers.push({ kind: j.kind, status: r.status(), analysis: a.status || null, issues: a.qualityIssues || [] });
  });
  await page.goto(`${base}/v/${encodeURIComponent(link)}`);
  await page.locator("#consent-check").check();
  await page.locator("#consent-accept").click();

  // The front, blurred: refused with its hint; the step stays.
  await page.locator("#step-title", { hasText: "Frente de tu identificación" }).waitFor();
  out.guides = await page.locator(".guide").evaluateAll((g) => g.map((x) => x.className));
  await page.locator("#file").setInputFiles(blurred);
  await page.locator("#quality-hints").waitFor();
  out.refused = {
    issues: await page.locator("#quality-hints").getAttribute("data-issues"),
    hints: await page.locator("#quality-hints li").allTextContents(),
    status: await page.locator("#status").textContent(),
    code: await page.locator("#status").getAttribute("data-code"),
    title: await page.locator("#step-title").textContent(),
    useAnyway: await page.locator("#use-anyway").count(),
  };
  await page.screenshot({ path: `${shots}/embedded-retake.png` });
  out.axe.retake = await axeViolations(page);
  // The retake: the sharp photo, accepted, and the page moves on.
  await page.locator("#file").setInputFiles(`${samples}/front.jpg`);
  await page.locator("#step-title", { hasText: "Reverso de tu identificación" }).waitFor();
  out.retakeAccepted = true;
  await page.locator("#file").setInputFiles(`${samples}/back.jpg`);
  await page.waitForFunction(() => !/Reverso/.test(document.querySelector("#step-title").textContent) ||
    document.querySelector("#quality-hints"));

  // Whatever else the flow asks: the selfie and the liveness video from the (fake) camera.
  for (let i = 0; i < 8; i++) {
    await page.locator("#take:not([disabled]), #record:not([disabled]), #submit, #outcome, #quality-hints").first().waitFor();
    if (await page.locator("#outcome").count()) break;
    if (await page.locator("#quality-hints").count()) {
      // A camera photo refused: the second one may be kept.
      out.cameraRefusals = (out.cameraRefusals || 0) + 1;
      if (await page.locator("#use-anyway").count()) await page.locator("#use-anyway").click();
      else await page.locator("#take").click();
      await page.locator("#quality-hints").waitFor({ state: "detached" }).catch(() => {});
      continue;
    }
    if (await page.locator("#take:not([disabled])").count()) {
      const before = await page.locator("#step-title").textContent();
      await page.locator("#take").click();
      await page.waitForFunction((t) => document.querySelector("#step-title").textContent !== t || document.querySelector("#quality-hints"), before);
    } else if (await page.locator("#record:not([disabled])").count()) {
      await page.locator("#record").click();
      await page.locator("#submit, #outcome").first().waitFor();
    } else if (await page.locator("#submit").count()) {
      await page.locator("#submit").click();
      await page.locator("#outcome").waitFor();
    }
  }
  out.outcome = await page.locator("#outcome").getAttribute("data-status");
  out.uploads = (await page.evaluate(() => window.__uploads)).map((f) => ({
    kind: f.kind, captureSource: f.captureSource || null, facts: f.captureFacts ? JSON.parse(f.captureFacts) : null }));
  out.ok = true;
} catch (e) {
  out.error = String(e && e.stack || e);
} finally {
  await browser.close();
  process.stdout.write(JSON.stringify(out) + "\n");
}
