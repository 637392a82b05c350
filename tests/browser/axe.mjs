// axe-core (npm) in a playwright page, with the WCAG 2.2 AA rule set: the violations of the
// page's current state, as [{id, impact, help, targets}], and how many rules applied and passed. The page's CSP allows no inline script:
// axe is evaluated through the DevTools protocol (page.evaluate), which the CSP does not govern.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const source = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
export const WCAG22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"];

export async function axeViolations(page) {
  const loaded = await page.evaluate(() => typeof window.axe !== "undefined");
  if (!loaded) await page.evaluate(source + "\n;0");
  const result = await page.evaluate((tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags } }), WCAG22_AA);
  return {
    violations: result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                                                targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) })),
    passes: result.passes.length,
  };
}
