// The review console in a real browser: Debian's chromium driven by playwright-core (npm). Run by
// tests/integration/review_console_test.cc against a real svc, which prepared a tenant, a
// reviewer and a case opened by a real verification; this script talks to it over stdin/stdout:
//
//   node console.mjs <base url> <reviewer secret> <screenshot dir> <supervisor secret>
//   -> "queue"            the reviewer signed in and sees one case; the live feed is open
//   <- "go"               the test opened a second case meanwhile
//   -> {"...": ...}       one JSON line: what the page showed, axe's WCAG 2.2 AA violations of each
//                         state reached, and any third-party request or console error (a CSP
//                         violation shows up there)
//   <- "supervisor"       the test checked the audit log
//   -> {"...": ...}       the supervisor's part: the team's workload, a resolved case's captures
//
// Once signed in, both cases are worked with the keyboard alone: focus, Enter, the shortcuts
// (c claim, t note, a approve, n next, d decline, z zoom, ? help) and the dialogs.
import { chromium } from "playwright-core";
import readline from "node:readline";
import { axeViolations } from "./axe.mjs";
import { contrastOfFocus } from "./contrast.mjs";

const [base, secret, shots, supervisorSecret] = process.argv.slice(2);
const lines = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once("line", resolve));
let out = { thirdParty: [], consoleErrors: [], pageErrors: [], axe: {}, mediaFetches: {}, caseFetches: {}, stateFetches: 0 };

const browser = await chromium.launch({
  executablePath: process.env.SVC_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
let page;
try {
  page = await browser.newPage({ viewport: { width: 1360, height: 900 }, locale: "es-MX", timezoneId: "America/Mexico_City" });
  page.setDefaultTimeout(30000);
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(base) && !u.startsWith("blob:") && !u.startsWith("data:")) out.thirdParty.push(u);
    const path = u.startsWith(base) ? u.slice(base.length).split("?")[0] : "";
    let m;
    if ((m = path.match(/^\/v1\/review\/media\/(med_[0-9a-f]+)$/))) out.mediaFetches[m[1]] = (out.mediaFetches[m[1]] || 0) + 1;
    if ((m = path.match(/^\/v1\/review\/cases\/(cas_[0-9a-f]+)$/))) out.caseFetches[m[1]] = (out.caseFetches[m[1]] || 0) + 1;
    if (/^\/v1\/review\/cases\/cas_[0-9a-f]+\/state$/.test(path)) out.stateFetches++;
  });
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    // The wrong secret below is refused on purpose (401): the one expected failed request.
    if (m.location().url.endsWith("/console/api/sign-in") && m.text().includes("401")) return;
    out.consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => out.pageErrors.push(String(e)));
  const axe = async (name) => { out.axe[name] = await axeViolations(page); };  // {violations, passes}
  const notice = (text) => page.waitForFunction((t) => document.querySelector("#detail .notice")?.textContent.includes(t), text);
  const focusedAction = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.dataset.action || document.activeElement?.tagName);

  const response = await page.goto(base + "/console/");
  out.csp = response.headers()["content-security-policy"];
  // Before anyone signs in, the queue panel is not on screen (issue 69, item 4).
  out.appShownBeforeSignIn = await page.evaluate(() => getComputedStyle(document.getElementById("app")).display !== "none");
  out.title = await page.textContent("h1");
  await axe("signIn");
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
  out.queueReasons = await page.$$eval("#queue li [data-reasons]", (items) => items.map((e) => e.textContent));
  await axe("queue");
  // The two checks axe cannot make (issue 69, item 10): no ticking SLA inside a live region (it
  // would be announced every 30 s), and focus indicators of 3:1 at least against the page.
  out.slaInLiveRegions = await page.evaluate(() =>
    document.querySelectorAll("[aria-live] [data-sla], [role=status] [data-sla], [role=alert] [data-sla], [role=log] [data-sla]").length);
  out.detailLive = await page.evaluate(() => document.getElementById("detail").getAttribute("aria-live"));
  await page.keyboard.press("Shift");  // a keyboard user's focus: :focus-visible applies
  await page.focus("#queue li button.case");
  out.focusContrast = await page.evaluate(contrastOfFocus);
  await page.screenshot({ path: `${shots}/review-console-queue.png` });

  // From here on, the keyboard alone. The help overlay first.
  await page.keyboard.press("?");
  await page.waitForSelector("#help[open]");
  out.help = await page.$$eval("#help-list dt", (dts) => dts.map((d) => d.textContent));
  await axe("help");
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => !document.querySelector("#help").open);

  // Search, by keyboard: "/" then the first case's id; the results replace the queue; cleared.
  await page.keyboard.press("/");
  await page.keyboard.type(out.firstQueue[0]);
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector("#search-status").textContent.length > 0);
  out.searchResults = await page.$$eval("#queue li", (items) => items.map((li) => li.dataset.case));
  out.searchStatus = await page.textContent("#search-status");
  await axe("search");
  await page.keyboard.press("/");  // an empty search clears it
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Backspace");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelectorAll("#queue li").length === 2);

  // The first case: focus its row (sign-in put the focus on the queue), open it with Enter.
  // (Both cases have the same priority and SLA: the queue's order between them is by id.)
  await page.evaluate(() => document.querySelector("#queue button.case").focus());
  const focusedRow = () => page.evaluate(() => document.activeElement.closest("li")?.dataset.case);
  for (let i = 0; i < 2 && (await focusedRow()) !== out.firstQueue[0]; i++) await page.keyboard.press("j");
  out.focusedRow = await focusedRow();
  await page.keyboard.press("Enter");
  await page.waitForSelector("#applicant");
  out.curp = await page.textContent('#applicant [data-field="curp"]');
  await page.keyboard.press("c");
  await notice("Tomado");
  // Every capture loaded (fetched once each): three images and the video.
  const allLoaded = () => {
    const imgs = [...document.querySelectorAll("#detail figure img")];
    return imgs.length === 3 && imgs.every((i) => i.complete && i.naturalWidth > 0) && document.querySelector("#detail video") !== null;
  };
  await page.waitForFunction(allLoaded);
  out.images = await page.$$eval("#detail figure img", (imgs) => imgs.map((i) => i.naturalWidth));
  out.compare = await page.$$eval("#compare figure", (fs) => fs.map((f) => f.dataset.kind));
  // The document against the registries: field, value on file, registry, its answer; a row
  // marked when they disagree.
  out.fieldsVsRegistry = await page.$$eval("#fields-vs-registry tbody tr", (rows) =>
    rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent).concat(r.classList.contains("mismatch") ? ["marked"] : [])));
  await page.keyboard.press("t");
  out.noteFocused = await focusedAction();
  await page.keyboard.type("Documento y selfie coinciden en revisión; se aprueba.");
  await page.keyboard.press("Tab");  // to "Agregar nota"
  out.afterNoteTab = await focusedAction();
  await page.keyboard.press("Enter");
  await notice("Nota agregada");
  await page.waitForFunction(allLoaded);
  await axe("case");
  await page.setViewportSize({ width: 1360, height: 2600 });
  await page.screenshot({ path: `${shots}/review-console-case.png` });
  await page.setViewportSize({ width: 1360, height: 900 });

  // Approve: the confirmation with a reason from the catalogue.
  await page.keyboard.press("a");
  await page.waitForSelector("#decide[open]");
  out.approveReasons = await page.$$eval("#decide-reason option", (os) => os.map((o) => o.value));
  out.approveDefault = await page.inputValue("#decide-reason");
  await page.keyboard.press("ArrowDown");  // the next reason: MANUAL_DOCUMENT_CHECK
  out.approveReason = await page.inputValue("#decide-reason");
  await axe("confirm");
  await page.screenshot({ path: `${shots}/review-console-confirm.png` });
  await page.keyboard.press("Tab");  // the note (optional here)
  await page.keyboard.press("Tab");  // Cancel
  await page.keyboard.press("Tab");  // Confirm
  out.confirmFocused = await focusedAction();
  await page.keyboard.press("Enter");
  await notice("Hecho");
  out.resolved = await page.textContent("#detail .notice");
  out.history = await page.$$eval("#history tbody tr", (rows) => rows.map((r) => r.textContent));
  out.firstDecisions = await page.$$eval("#detail table", (ts) => ts.map((t) => t.textContent).join("\n"));
  out.viewers = await page.$$eval("#viewers tbody tr", (rows) => rows.map((r) => r.textContent));
  await page.waitForFunction(() => document.querySelectorAll("#queue li").length === 1);

  // n: the next case of the queue (the second one), claimed, declined with a reason.
  await page.keyboard.press("n");
  await page.waitForFunction((first) => {
    const d = document.querySelector("#detail");
    return d.dataset.case && d.dataset.case !== first && d.querySelector("[data-case-status]");
  }, out.firstQueue[0]);
  out.secondCase = await page.getAttribute("#detail", "data-case");
  await page.keyboard.press("c");
  await notice("Tomado");
  await page.waitForFunction(allLoaded);
  await page.keyboard.press("d");
  await page.waitForSelector("#decide[open]");
  out.declineReasons = await page.$$eval("#decide-reason option", (os) => os.map((o) => o.value));
  await page.keyboard.press("ArrowDown");  // FACE_MISMATCH
  out.declineReason = await page.inputValue("#decide-reason");
  await page.keyboard.press("Tab");
  await page.keyboard.type("El rostro de la selfie no es el del documento.");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await notice("Hecho");
  out.declined = await page.textContent("#detail .notice");
  // The captures stay shown for the rest of the visit (no refetch); z enlarges the first.
  await page.waitForFunction(allLoaded);
  await page.keyboard.press("z");
  await page.waitForSelector("#zoom[open]");
  await page.waitForFunction(() => document.querySelector("#zoom-frame img")?.naturalWidth > 0);
  await page.keyboard.press("+");
  out.zoomLevel = await page.textContent("#zoom-level");
  await axe("zoom");
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => !document.querySelector("#zoom").open);
  await axe("resolved");
  await page.screenshot({ path: `${shots}/review-console-resolved.png` });
  await page.waitForFunction(() => document.querySelectorAll("#queue li").length === 0);

  // English on demand (the choice is kept in the browser).
  await page.selectOption("#lang", "en");
  out.englishTitle = await page.textContent("h1");
  out.englishNotice = await page.textContent("#detail h3");
  out.ok = true;
  process.stdout.write(JSON.stringify(out) + "\n");

  // The supervisor: the team's workload, and a finished case's captures.
  await nextLine();
  const sup = { axe: {} };
  const spage = await browser.newPage({ viewport: { width: 1360, height: 900 }, locale: "es-MX", timezoneId: "America/Mexico_City" });
  spage.setDefaultTimeout(30000);
  spage.on("pageerror", (e) => out.pageErrors.push(String(e)));
  await spage.goto(base + "/console/");
  await spage.fill("#secret", supervisorSecret);
  await spage.click("#signin-button");
  await spage.waitForSelector("#team-button:not([hidden])");
  sup.who = await spage.textContent("#who");
  await spage.click("#team-button");
  await spage.waitForSelector("#team[open] #team-table tbody tr");
  sup.team = await spage.$$eval("#team-table tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  sup.axe.team = await axeViolations(spage);
  await spage.screenshot({ path: `${shots}/review-console-team.png` });
  await spage.keyboard.press("Escape");
  await spage.selectOption("#f-status", "resolved");
  await spage.waitForFunction(() => document.querySelectorAll("#queue li").length === 2);
  await spage.click("#queue li button.case");
  await spage.waitForFunction(() => {
    const imgs = [...document.querySelectorAll("#detail figure img")];
    return imgs.length === 3 && imgs.every((i) => i.complete && i.naturalWidth > 0);
  });
  sup.resolvedImages = await spage.$$eval("#detail figure img", (imgs) => imgs.length);
  // No person linked: what the document said, not "—" everywhere (issue 69, item 9).
  sup.documentRead = await spage.$$eval("#document-read dd", (dds) => dds.map((d) => d.textContent));
  sup.applicantShown = await spage.locator("#applicant").count();
  sup.onFile = await spage.$$eval("#fields-vs-registry tbody tr", (rows) => rows.map((r) => r.cells[1].textContent));
  sup.axe.resolvedCase = await axeViolations(spage);
  // "More information" (issue 69, item 5): the captures to take again are ticked, and the words for
  // the applicant written in the applicant's language, which the dialog names.
  await spage.selectOption("#f-status", "open");
  await spage.waitForFunction(() => document.querySelectorAll("#queue li").length === 1);
  await spage.click("#queue li button.case");
  await spage.waitForSelector("#detail [data-case-status]");
  await spage.click('#detail button[data-action="claim"]');
  await spage.waitForSelector('#detail button[data-action="request_more_info"]:not([disabled])');
  await spage.click('#detail button[data-action="request_more_info"]');
  await spage.waitForSelector("#decide[open]");
  sup.askMore = await spage.evaluate(() => ({
    retakeShown: !document.getElementById("decide-retake").hidden,
    retakes: [...document.querySelectorAll("#decide-captures input")].map((i) => i.value),
    reasons: [...document.querySelectorAll("#decide-reason option")].map((o) => o.value),
    messageLabel: document.getElementById("decide-message-label").textContent,
    messageLang: document.getElementById("decide-message").lang,
  }));
  await spage.check('#decide-captures input[value="DOCUMENT_BACK_REQUIRED"]');
  await spage.fill("#decide-message", "El reverso salió con reflejo: tómalo de nuevo sin flash.");
  sup.axe.askMore = await axeViolations(spage);
  await spage.click("#decide-confirm");
  await spage.waitForFunction(() => document.querySelector("#detail .notice")?.textContent.includes("Hecho"));
  sup.askedMore = await spage.textContent("#detail .notice");
  await spage.selectOption("#f-status", "resolved");
  // Signed out, nothing of the session stays on screen (issue 69, item 4): a search for a CURP,
  // a filter, the counts, the queue, the case.
  await spage.fill("#q", "PEPJ800101HDFRRN03");
  await spage.click("#search-go");
  await spage.waitForFunction(() => document.querySelector("#search-status").textContent.length > 0);
  await spage.selectOption("#f-priority", "high");
  await spage.click("#signout");
  await spage.waitForSelector("#signin:not([hidden])");
  sup.afterSignOut = await spage.evaluate(() => ({
    app: getComputedStyle(document.getElementById("app")).display,
    search: document.getElementById("q").value,
    searchStatus: document.getElementById("search-status").textContent,
    priority: document.getElementById("f-priority").value,
    summary: document.getElementById("summary").textContent,
    queue: document.querySelectorAll("#queue li").length,
    detail: document.getElementById("detail").textContent,
    text: document.body.innerText,
  }));
  // A phone (390 px, WCAG 1.4.10): nothing off-screen, the case pane under the queue.
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: "es-MX", timezoneId: "America/Mexico_City" });
  phone.setDefaultTimeout(30000);
  phone.on("pageerror", (e) => out.pageErrors.push(String(e)));
  await phone.goto(base + "/console/");
  await phone.fill("#secret", supervisorSecret);
  await phone.click("#signin-button");
  await phone.waitForSelector("#signout:not([hidden])");
  await phone.selectOption("#f-status", "resolved");
  await phone.waitForSelector("#queue li");
  await phone.click("#queue li button.case");
  await phone.waitForSelector("#detail h2");
  sup.phone = await phone.evaluate(() => {
    const right = (id) => Math.round(document.getElementById(id).getBoundingClientRect().right);
    return { scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth,
             signout: right("signout"), detail: right("detail"), queue: right("queue") };
  });
  sup.axe.phone = await axeViolations(phone);
  await phone.screenshot({ path: `${shots}/review-console-phone.png`, fullPage: true });
  sup.pageErrors = out.pageErrors;
  sup.ok = true;
  out = sup;
} catch (e) {
  out.ok = false;
  out.error = String(e && e.stack ? e.stack : e);
  // What the page showed when it failed.
  out.failedDetail = await page.textContent("#detail").catch(() => null);
  out.failedFocus = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 200)).catch(() => null);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
