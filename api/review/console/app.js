// The review console (docs/review.md#the-console). Plain JavaScript, no dependencies, served by
// svc under a strict Content-Security-Policy: no inline code, no third-party requests. The
// reviewer token lives in memory only (a reload signs out). Personal data is fetched only when
// a case is opened (an audited reveal); the live queue feed carries ids and states, never data.
"use strict";

const state = { token: null, user: null, cursor: null, selected: null, detail: null, events: null };
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function api(method, path, body) {
  const headers = { Authorization: "Bearer " + state.token };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status === 401) {
    signOut("Your session ended: sign in again.");
    throw new Error("signed out");
  }
  const text = await r.text();
  const data = text ? JSON.parse(text) : null;
  if (!r.ok) {
    const err = new Error((data && (data.detail || data.title)) || r.statusText);
    err.code = data && data.code;
    throw err;
  }
  return data;
}

// ---- sign-in ----------------------------------------------------------------------------------

async function signIn(ev) {
  ev.preventDefault();
  $("signin-error").textContent = "";
  const secret = $("secret").value.trim();
  const environment = $("environment").value;
  const r = await fetch("/console/api/sign-in", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ secret, environment }),
  });
  const data = await r.json().catch(() => null);
  if (!r.ok) {
    $("signin-error").textContent = (data && data.detail) || "Sign-in failed.";
    return;
  }
  $("secret").value = "";
  state.token = data.token;
  state.user = data;
  $("signin").hidden = true;
  $("app").hidden = false;
  $("who").hidden = false;
  $("who").textContent = `${data.label} · ${data.role} · ${data.environment}`;
  $("signout").hidden = false;
  openFeed();
  await refreshQueue();
}

function signOut(message) {
  state.token = null;
  state.user = null;
  state.selected = null;
  if (state.events) state.events.close();
  state.events = null;
  $("app").hidden = true;
  $("who").hidden = true;
  $("live").hidden = true;
  $("signout").hidden = true;
  $("signin").hidden = false;
  $("queue").replaceChildren();
  $("detail").replaceChildren(el("p", { class: "placeholder" }, "Open a case from the queue."));
  $("signin-error").textContent = message || "";
}

// ---- the queue --------------------------------------------------------------------------------

function queueQuery(cursor) {
  const q = new URLSearchParams({ limit: "20" });
  if ($("f-status").value) q.set("status", $("f-status").value);
  if ($("f-priority").value) q.set("priority", $("f-priority").value);
  if ($("f-scope").value !== "all") q.set("scope", $("f-scope").value);
  if ($("f-mine").checked) q.set("mine", "true");
  if (cursor) q.set("cursor", cursor);
  return q.toString();
}

function caseItem(c) {
  const li = el("li", { "data-case": c.caseId, class: c.caseId === state.selected ? "selected" : null,
                        onclick: () => openCase(c.caseId) },
    el("div", { class: "top" },
      el("strong", {}, c.publicId),
      el("span", {}, el("span", { class: "pill p-" + c.priority }, c.priority), " ",
         el("span", { class: "pill s-" + c.status, "data-status": "" }, c.status))),
    el("div", { class: "sub" }, c.reason || (c.reasonCodes || []).join(", ") || "—"),
    el("div", { class: "sub" }, "SLA " + fmt(c.slaDueAt),
       c.assigneeUserId ? " · " + (c.assigneeUserId === state.user.userId ? "mine" : "held by " + short(c.assigneeUserId)) : "",
       c.assigneeApiKeyId ? " · held by key " + short(c.assigneeApiKeyId) : ""));
  return li;
}

async function refreshQueue(append) {
  if (!state.token) return;
  const [page, summary] = await Promise.all([
    api("GET", "/v1/review/queue?" + queueQuery(append ? state.cursor : null)),
    append ? null : api("GET", "/v1/review/queue/summary"),
  ]);
  if (summary) {
    $("summary").replaceChildren(...["open", "inProgress", "escalated", "resolved", "closed", "total"].map(
      (k) => el("span", { "data-count": k }, `${k} ${summary[k] ?? 0}`)));
  }
  const items = page.data.map(caseItem);
  if (append) $("queue").append(...items); else $("queue").replaceChildren(...items);
  state.cursor = page.nextCursor;
  $("more").hidden = !page.hasMore;
}

let refreshTimer = null;
function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => refreshQueue().catch(() => {}), 150);
}

// The live queue: the review feed over Server-Sent Events (ids and states only). The browser's
// EventSource cannot send headers, so the token goes in the query string (never logged).
function openFeed() {
  if (state.events) state.events.close();
  const es = new EventSource("/console/api/events?access_token=" + encodeURIComponent(state.token));
  state.events = es;
  $("live").hidden = false;
  es.onopen = () => $("live").classList.remove("off");
  es.onerror = () => $("live").classList.add("off");
  es.onmessage = onFeed;
  for (const t of ["review.case_opened", "review.case_claimed", "review.case_released", "review.case_reassigned",
                   "review.note_added", "review.case_escalated", "review.resolution_proposed", "review.case_resolved"]) {
    es.addEventListener(t, onFeed);
  }
}

function onFeed(ev) {
  let entry;
  try { entry = JSON.parse(ev.data); } catch { return; }
  document.body.dataset.lastFeed = entry.type + " " + entry.caseId;
  refreshSoon();
  if (state.detail && entry.caseId === state.selected) {
    const badge = document.querySelector("#detail [data-case-status]");
    if (badge) { badge.textContent = entry.status; badge.className = "pill s-" + entry.status; }
  }
}

// ---- a case -----------------------------------------------------------------------------------

async function openCase(id) {
  state.selected = id;
  for (const li of $("queue").children) li.classList.toggle("selected", li.dataset.case === id);
  $("detail").replaceChildren(el("p", { class: "placeholder" }, "Opening…"));
  try {
    state.detail = await api("GET", "/v1/review/cases/" + id);
    renderCase(state.detail);
  } catch (e) {
    $("detail").replaceChildren(el("p", { class: "notice bad" }, e.message));
  }
}

function renderCase(d, notice) {
  const c = d.case;
  const s = d.session;
  const a = d.applicant;
  const allowed = Object.fromEntries((d.actions || []).map((x) => [x.action, x.allowed]));
  const note = el("textarea", { id: "note", placeholder: "A note for the case log (sealed; shown only here)" });
  const act = (action, label, cls) =>
    el("button", { type: "button", class: cls, "data-action": action, disabled: !allowed[action],
                   onclick: () => runAction(action, note.value) }, label);
  const out = [
    el("h2", {}, c.publicId, " ", el("span", { class: "pill p-" + c.priority }, c.priority), " ",
       el("span", { class: "pill s-" + c.status, "data-case-status": "" }, c.status)),
    el("div", { class: "meta" }, `opened ${fmt(c.createdAt)} · SLA ${fmt(c.slaDueAt)} · `,
       ["resolved", "closed"].includes(c.status) ? `finished ${fmt(c.resolvedAt)}: ${c.resolution}` :
       c.assigneeUserId ? `held by ${c.assigneeUserId === state.user.userId ? "you" : short(c.assigneeUserId)}` :
       c.assigneeApiKeyId ? `held by key ${short(c.assigneeApiKeyId)}` : "unassigned",
       c.awaitingSecondApproval ? ` · awaiting a second approval (${c.proposedResolution?.action})` : ""),
    notice ? el("p", { class: "notice " + (notice.ok ? "ok" : "bad"), role: "status" }, notice.text) : null,
    el("div", { class: "actions" },
      c.assigneeUserId === state.user.userId ? el("button", { type: "button", disabled: true }, "Claimed") : act("claim", "Claim"),
      act("release", "Release"),
      act("approve", "Approve", "approve"), act("decline", "Decline", "decline"),
      act("request_more_info", "Ask for more"), act("escalate", "Escalate")),
    note,
    el("div", { class: "actions" }, el("button", { type: "button", "data-action": "note", disabled: !allowed.note,
                                                   onclick: () => runAction("note", note.value) }, "Add note")),
    el("h3", {}, "Applicant"),
    a ? el("dl", { class: "grid", id: "applicant" },
          ...["fullName", "curp", "rfc", "claveElector", "birthDate", "sex", "nationality", "state", "email", "phone"]
            .flatMap((k) => [el("dt", {}, k), el("dd", { "data-field": k }, a[k] ?? "—")]))
      : el("p", { class: "meta" }, "No personal data is held for this case (no person, or erased)."),
  ];
  if (s) {
    out.push(el("h3", {}, "Verification"),
      el("div", { class: "scores" },
        score("trust", s.trustScore), score("face match", s.faceMatchScore), score("liveness", s.livenessScore),
        el("div", { class: "score" }, el("b", {}, s.status), "session")),
      el("p", { class: "meta" }, `latest verdict: ${s.outcome ?? "—"} · reasons: ${(s.reasonCodes || []).join(", ") || "—"}`));
    if (s.checks && s.checks.length) {
      out.push(el("h3", {}, "Checks"), table(["check", "outcome", "reasons", "completed"],
        s.checks.map((x) => [x.step, x.status, (x.reasonCodes || []).join(", "), fmt(x.completedAt)])));
    }
    if (s.biometric && s.biometric.length) {
      out.push(el("h3", {}, "Biometrics"), table(["check", "score", "threshold", "passed", "model"],
        s.biometric.map((b) => [b.checkType, num(b.score), num(b.threshold), b.passed == null ? "—" : String(b.passed), b.modelName ?? "—"])));
    }
    if (s.document) {
      out.push(el("h3", {}, "Document"), el("dl", { class: "grid" },
        ...Object.entries(s.document).filter(([, v]) => v !== null && typeof v !== "object")
          .flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))])));
    }
  }
  if (d.govLookups && d.govLookups.length) {
    out.push(el("h3", {}, "Government lookups"), table(["source", "check", "outcome", "matched", "registry", "reasons"],
      d.govLookups.map((g) => [g.source, g.check, g.outcome, g.matched === null || g.matched === undefined ? "—" : String(g.matched),
                               g.registryStatus ?? "—", (g.reasonCodes || []).join(", ")])));
  }
  out.push(el("h3", {}, "Captures"), el("div", { class: "media", id: "media" },
    ...(d.media || []).map((m) => el("figure", { "data-media": m.mediaId },
      el("div", { class: "slot" }, m.url ? "loading…" : "purged"),
      el("figcaption", {}, `${m.kind} · ${m.mime} · ${Math.round((m.sizeBytes || 0) / 1024)} KiB`)))));
  out.push(el("h3", {}, "Decisions"), table(["by", "outcome", "reasons", "at"],
    (d.decisions || []).map((x) => [x.decidedBy + (x.reviewers ? " (" + x.reviewers.map((r) => short(r.id)).join(", ") + ")" : ""),
                                     x.outcome, (x.reasonCodes || []).join(", "), fmt(x.decidedAt)])));
  out.push(el("h3", {}, "History"), table(["when", "what", "who", "note"],
    (d.events || []).map((e) => [fmt(e.createdAt), e.eventType.replace("review.", "") + (e.action ? " " + e.action : ""),
                                 e.actorType === "system" ? "system" : short(e.actorUserId || e.actorId || ""), e.body ?? ""])));
  $("detail").replaceChildren(...out.filter(Boolean));
  // Captures are shown only to a reviewer entitled to the case: unfinished, free or held by them.
  const open = !["resolved", "closed"].includes(c.status);
  const free = !c.assigneeUserId && !c.assigneeApiKeyId;
  if (open && (free || c.assigneeUserId === state.user.userId)) {
    loadMedia(d.media || []);
  } else {
    for (const slot of document.querySelectorAll("#media .slot")) {
      slot.textContent = open ? "shown to the reviewer holding the case" : "not shown once the case is finished";
    }
  }
}

// Captures are fetched with the token and shown from blob: URLs (CSP allows img-src blob:).
async function loadMedia(media) {
  for (const m of media) {
    if (!m.url) continue;
    const slot = document.querySelector(`[data-media="${m.mediaId}"] .slot`);
    try {
      const r = await fetch(m.url, { headers: { Authorization: "Bearer " + state.token } });
      if (!r.ok) { slot.textContent = "not available (" + r.status + ")"; continue; }
      const url = URL.createObjectURL(await r.blob());
      const media = m.mime.startsWith("video/") ? el("video", { src: url, controls: true, muted: true })
                                                : el("img", { src: url, alt: m.kind });
      slot.replaceChildren(media);
    } catch {
      slot.textContent = "not available";
    }
  }
}

async function runAction(action, noteText) {
  const id = state.selected;
  let notice;
  try {
    if (action === "claim") {
      await api("POST", `/v1/review/cases/${id}/claim`);
      notice = { ok: true, text: "Claimed: the case is yours." };
    } else if (action === "release") {
      await api("POST", `/v1/review/cases/${id}/release`);
      notice = { ok: true, text: "Released to the queue." };
    } else if (action === "note") {
      if (!noteText.trim()) throw new Error("Write the note first.");
      await api("POST", `/v1/review/cases/${id}/notes`, { note: noteText });
      notice = { ok: true, text: "Note added." };
    } else {
      const body = { action };
      if (noteText.trim()) body.note = noteText;
      const r = await api("POST", `/v1/review/cases/${id}/resolve`, body);
      notice = r.awaitingSecondApproval
        ? { ok: true, text: "Recorded: a second reviewer must approve it." }
        : { ok: true, text: `Done: case ${r.caseStatus}, session ${r.sessionStatus}.` };
    }
  } catch (e) {
    notice = { ok: false, text: (e.code ? e.code + ": " : "") + e.message };
  }
  // The case again (an audited view, like any opening) and the queue.
  try {
    state.detail = await api("GET", "/v1/review/cases/" + id);
    renderCase(state.detail, notice);
  } catch (e) {
    $("detail").replaceChildren(el("p", { class: "notice bad" }, e.message));
  }
  refreshSoon();
}

// ---- formatting -------------------------------------------------------------------------------

function fmt(t) { return t ? new Date(t).toISOString().replace("T", " ").slice(0, 16) + "Z" : "—"; }
function short(id) { return id ? id.slice(0, 8) + "…" + id.slice(-4) : ""; }
function num(x) { return typeof x === "number" ? x.toFixed(2) : "—"; }
function score(label, v) { return el("div", { class: "score" }, el("b", {}, num(v)), label); }
function table(head, rows) {
  return el("table", {}, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c) => el("td", {}, c ?? ""))))));
}

// ---- wiring -----------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("signin-form").addEventListener("submit", (e) => signIn(e).catch((x) => { $("signin-error").textContent = x.message; }));
  $("signout").addEventListener("click", () => signOut());
  for (const id of ["f-status", "f-priority", "f-scope", "f-mine"]) $(id).addEventListener("change", () => refreshQueue());
  $("more").addEventListener("click", () => refreshQueue(true));
});
