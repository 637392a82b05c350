// The review console in a real browser: Debian's chromium driven by playwright-core (npm). Run by
// tests/integration/review_console_test.cc against a real svc, which prepared a tenant, a
// reviewer and a case opened by a real verification; this script talks to it over stdin/stdout:
//
//   node console.mjs <base url> <reviewer secret> <screenshot dir>
//   -> "queue"            the reviewer signed in and sees one case; the live feed is open
//   <- "go"               the test opened a second case meanwhile
//   -> {"...": ...}       one JSON line: what the page showed, and any third-party request or
//                         console error (a CSP violation shows up there)
import { chromium } from "playwright-core";
import readline from "node:readline";

const [base, secret, shots] = process.argv.slice(2);
const lines = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once("line", resolve));
const out = { thirdParty: [], consoleErrors: [], pageErrors: [] };

const browser = await chromium.launch({
  executablePath: process.env.SVC_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  page.setDefaultTimeout(30000);
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(base) && !u.startsWith("blob:") && !u.startsWith("data:")) out.thirdParty.push(u);
  });
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    // The wrong secret below is refused on purpose (401): the one expected failed request.
    if (m.location().url.endsWith("/console/api/sign-in") && m.text().includes("401")) return;
    out.consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => out.pageErrors.push(String(e)));

  const response = await page.goto(base + "/console/");
  out.csp = response.headers()["content-security-policy"];
  await page.screenshot({ path: `${shots}/review-console-sign-in.png` });

  // A wrong secret is refused on the page.
  await page.fill("#secret", "usk_" + "x".repeat(40));
  await page.click("#signin-button");
  await page.waitForFunction(() => document.querySelector("#signin-error").textContent.length > 0);
  out.wrongSecret = await page.textContent("#signin-error");

  await page.fill("#secret", secret);
  await page.selectOption("#environment", "test");
  await page.click("#signin-button");
  await page.waitForSelector("#queue li");
  await page.waitForSelector("#live:not(.off)");
  out.who = await page.textContent("#who");
  out.firstQueue = await page.$$eval("#queue li", (items) => items.map((li) => li.dataset.case));
  process.stdout.write("queue\n");

  // Live: the second case appears without a reload, through the SSE reviewer feed.
  await nextLine();
  await page.waitForFunction(() => document.querySelectorAll("#queue li").length === 2);
  out.liveQueue = await page.$$eval("#queue li", (items) => items.map((li) => li.dataset.case));
  await page.screenshot({ path: `${shots}/review-console-queue.png` });

  // Open the first case: the applicant's data, the captures (fetched with the token), claim, note.
  await page.click(`#queue li[data-case="${out.firstQueue[0]}"]`);
  await page.waitForSelector("#applicant");
  out.curp = await page.textContent('#applicant [data-field="curp"]');
  await page.click('button[data-action="claim"]');
  await page.waitForSelector(".notice.ok");
  // Every capture loaded (they are fetched one after another): three images and the video.
  const allLoaded = () => {
    const imgs = [...document.querySelectorAll("#media img")];
    return imgs.length === 3 && imgs.every((i) => i.complete) && document.querySelector("#media video") !== null;
  };
  await page.waitForFunction(allLoaded);
  out.images = await page.$$eval("#media img", (imgs) => imgs.map((i) => i.naturalWidth));
  await page.fill("#note", "Document and selfie match on review; approving.");
  await page.click('button[data-action="note"]');
  await page.waitForFunction(() => document.querySelector(".notice")?.textContent.includes("Note added"));
  await page.waitForFunction(allLoaded);
  // The panes scroll on their own: a tall window shows the whole case in the screenshot.
  await page.setViewportSize({ width: 1360, height: 2300 });
  await page.screenshot({ path: `${shots}/review-console-case.png` });

  // The filters: "mine" keeps the claimed case; "unassigned" the other one.
  await page.check("#f-mine");
  await page.waitForFunction(() => document.querySelectorAll("#queue li").length === 1);
  out.mineQueue = await page.$$eval("#queue li", (items) => items.map((li) => li.dataset.case));
  await page.uncheck("#f-mine");
  await page.selectOption("#f-scope", "unassigned");
  await page.waitForFunction((held) => {
    const items = [...document.querySelectorAll("#queue li")];
    return items.length === 1 && items[0].dataset.case !== held;
  }, out.firstQueue[0]);
  out.unassignedQueue = await page.$$eval("#queue li", (items) => items.map((li) => li.dataset.case));
  await page.selectOption("#f-scope", "all");
  await page.waitForFunction(() => document.querySelectorAll("#queue li").length === 2);

  // Resolve: approve. The page reports the case and the session moved.
  await page.click('button[data-action="approve"]');
  await page.waitForFunction(() => document.querySelector(".notice")?.textContent.includes("Done"));
  out.resolved = await page.textContent(".notice");
  out.history = await page.$$eval("table:last-of-type tbody tr", (rows) => rows.map((r) => r.textContent));
  // The queue follows: one unfinished case left.
  await page.waitForFunction(() => document.querySelectorAll("#queue li").length === 1);
  await page.screenshot({ path: `${shots}/review-console-resolved.png`, clip: { x: 0, y: 0, width: 1360, height: 900 } });
  out.finalQueue = await page.$$eval("#queue li", (items) => items.map((li) => li.dataset.case));
  out.ok = true;
} catch (e) {
  out.ok = false;
  out.error = String(e && e.stack ? e.stack : e);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
