// A check axe cannot make (issue 69, item 10), shared by the browser tests: passed to
// page.evaluate, it runs in the page.
// Runs in the page: the contrast of the focused element's outline against the page behind it
// (WCAG 1.4.11 wants 3:1).
export function contrastOfFocus() {
  const rgb = (c) => (c.match(/[\d.]+/g) || [0, 0, 0]).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const e = document.activeElement;
  let bg = null;
  for (let p = e.parentElement; p && !bg; p = p.parentElement) {
    const c = getComputedStyle(p).backgroundColor;
    if (c && !/rgba\(.*, 0\)$/.test(c) && c !== "transparent") bg = c;
  }
  const a = lum(rgb(getComputedStyle(e).outlineColor)), b = lum(rgb(bg || "rgb(255,255,255)"));
  return { style: getComputedStyle(e).outlineStyle, ratio: Math.round(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)) * 100) / 100 };
}

