// The applicant's pages when they cannot go on, in a real browser (chromium, playwright-core): each
// error a test can provoke is a message in the page's language with what to do next, never the
// service's detail. Run by tests/integration/embedded_widget_test.cc:
//
//   node widget_errors.mjs <svc base url> <expired link token> <embedded session id>
//   -> one JSON line: {expired: {message, code, loading}, origin: {message, code}, axe: {...}}
//
// expired: the hosted page of a link session whose time ran out (the server's fake clock moved).
// origin: the widget's frame opened by a page that is not among the session's allowed origins
// (here the frame itself, top level, handing itself the init a parent would send).
import { chromium } from "playwright-core";
import { axeViolations } from "./axe.mjs";

const [base, expiredLink, ems] = process.argv.slice(2);
const out = { ok: false, consoleErrors: [], pageErrors: [], axe: {} };
const browser = await chromium.launch({
  executablePath: process.env.SVC_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"],
});
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  page.setDefaultTimeout(60000);
  page.on("pageerror", (e) => out.pageErrors.push(String(e)));

  await page.goto(`${base}/v/${encodeURIComponent(expiredLink)}`);
  await page.locator("#status.error").waitFor();
  out.expired = {
    message: await page.locator("#status").textContent(),
    code: await page.locator("#status").getAttribute("data-code"),
    loading: await page.locator("#loading").count(),
  };
  out.axe.expired = await axeViolations(page);

  await page.goto(`${base}/embed/v1/frame/${ems}`);
  await page.evaluate(() => window.postMessage({ source: "svc-embed-loader", type: "init", clientSecret: "x" }, "*"));
  await page.locator("#status.error").waitFor();
  out.origin = {
    message: await page.locator("#status").textContent(),
    code: await page.locator("#status").getAttribute("data-code"),
  };
  out.axe.origin = await axeViolations(page);
  out.ok = true;
} catch (e) {
  out.error = String((e && e.stack) || e);
} finally {
  await browser.close();
  process.stdout.write(JSON.stringify(out) + "\n");
}
