// Benchmark (scripts/bench.d/console.sh), not a test: a scripted reviewer works N cases of the
// review console with the keyboard alone — for each: n (open the next case), c (claim), a
// (approve), Enter (confirm the preselected reason) — and the time from the first n to the last
// verdict shown, in headless Debian chromium.
//   node console_bench.mjs <svc base url> <reviewer secret> <cases>
//   -> {"cases": N, "totalMs": ms, "perCaseMs": [ms, ...]}
import { chromium } from "playwright-core";

const [base, secret, count] = process.argv.slice(2);
const n = Number(count);
const browser = await chromium.launch({
  executablePath: process.env.SVC_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const out = { cases: n, perCaseMs: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, locale: "es-MX" });
  page.setDefaultTimeout(30000);
  await page.goto(base + "/console/");
  await page.fill("#secret", secret);
  await page.press("#secret", "Enter");
  await page.waitForFunction((k) => document.querySelectorAll("#queue li").length >= Math.min(k, 20), n);
  const t0 = Date.now();
  for (let i = 0; i < n; i++) {
    const t = Date.now();
    const before = await page.getAttribute("#detail", "data-case");
    await page.keyboard.press("n");
    await page.waitForFunction((b) => {
      const d = document.querySelector("#detail");
      return d.dataset.case && d.dataset.case !== b && d.querySelector('button[data-action="claim"]:not([disabled])');
    }, before);
    await page.keyboard.press("c");
    await page.waitForSelector('#detail button[data-action="approve"]:not([disabled])');
    await page.keyboard.press("a");
    await page.waitForSelector("#decide[open]");
    await page.keyboard.press("Tab");  // the note
    await page.keyboard.press("Tab");  // Cancel
    await page.keyboard.press("Tab");  // Confirm
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector("#detail .notice.ok")?.textContent.includes("Hecho"));
    out.perCaseMs.push(Date.now() - t);
  }
  out.totalMs = Date.now() - t0;
} catch (e) {
  out.error = String(e && e.stack ? e.stack : e);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
