// The review console (docs/review.md#the-console). Plain JavaScript, no dependencies, served by
// svc under a strict Content-Security-Policy: no inline code, no third-party requests. The
// reviewer token lives in memory only (a reload signs out). Personal data is fetched only when
// a case is opened (an audited reveal), once per visit: the actions of the visit read the case's
// state (GET …/state, no personal data) and the captures' bytes are kept in memory (blob: URLs)
// until the reviewer leaves the case. The live queue feed carries ids and states, never data.
"use strict";

// ---- words ------------------------------------------------------------------------------------

const WORDS = {
  "es-MX": {
    title: "Consola de revisión", language: "Idioma", live: "en vivo", shortcuts: "Atajos (?)", signOut: "Cerrar sesión",
    signIn: "Iniciar sesión", secret: "Secreto del revisor", environment: "Entorno", signInButton: "Entrar",
    signInFailed: "No se pudo iniciar sesión.", signInRefused: "La clave no es válida: revise la que le dio su supervisor.",
    signInThrottled: "Demasiados intentos: espere un minuto e inténtelo de nuevo.", sessionEnded: "Su sesión terminó: inicie sesión de nuevo.",
    queue: "Cola", status: "estado", priority: "prioridad", scope: "alcance", mine: "míos", more: "Más",
    unfinished: "sin terminar", anyPriority: "cualquier prioridad", all: "todos", unassigned: "sin asignar", assigned: "asignados",
    placeholder: "Abra un caso de la cola (Intro, o n para el siguiente). Abrir un caso muestra los datos personales del solicitante y queda registrado en la bitácora de auditoría: una vez por visita.",
    opening: "Abriendo…", reason: "Motivo", noteOptional: "Nota (opcional)", noteRequired: "Nota (obligatoria: la decisión contradice al motor)",
    cancel: "Cancelar", close: "Cerrar", zoomIn: "Acercar", zoomOut: "Alejar",
    shortcutsTitle: "Atajos de teclado",
    claim: "Tomar", claimed: "Tomado", release: "Liberar", approve: "Aprobar", decline: "Rechazar",
    request_more_info: "Pedir más", escalate: "Escalar", note: "Agregar nota", notePlaceholder: "Nota para la bitácora del caso (sellada; solo se muestra aquí)",
    applicant: "Solicitante", noApplicant: "No hay datos personales para este caso (sin persona, o borrados).",
    documentRead: "Sin persona vinculada: lo que dice el documento, leído en la verificación.",
    verification: "Verificación", checks: "Revisiones", biometrics: "Biometría", document: "Documento",
    registry: "Registros (RENAPO / INE)", fieldsVsRegistry: "Documento frente a registros",
    fieldColumn: "campo", onFile: "en el expediente", registryAnswer: "respuesta del registro", captures: "Capturas", compare: "Comparación de rostro", decisions: "Decisiones",
    history: "Historial", viewers: "Quién vio este caso", views: (n, o) => `${n} accesos, ${o} aperturas del caso`,
    noViewers: "Nadie más lo ha visto.", opened: "abierto", sla: "SLA", finished: "terminado", heldBy: "en manos de", you: "usted",
    byKey: "una llave", free: "libre", awaitingSecond: (a) => `espera una segunda aprobación (${a})`,
    overdue: (t) => `vencido hace ${t}`, dueIn: (t) => `vence en ${t}`,
    trust: "confianza", faceMatch: "coincidencia facial", liveness: "prueba de vida", session: "sesión",
    latest: (o, r) => `último veredicto: ${o} · motivos: ${r}`,
    loading: "cargando…", purged: "purgada", notShownHeld: "se muestra a quien tiene el caso", notShownFinished: "se muestra solo a supervisores una vez terminado",
    notAvailable: "no disponible", enlarge: (k) => `Ampliar ${k}`,
    claimedOk: "Tomado: el caso es suyo.", releasedOk: "Liberado a la cola.", noteOk: "Nota agregada.", writeNoteFirst: "Escriba la nota primero.",
    secondNeeded: "Registrado: otra persona revisora debe aprobarlo.", done: (c, s) => `Hecho: caso ${c}, sesión ${s}.`,
    confirmTitle: (a, id) => `${a}: ${id}`,
    consequence: {
      approve: "Aprueba la verificación: el integrador recibe el veredicto aprobado.",
      decline: "Rechaza la verificación: el integrador recibe el veredicto rechazado.",
      request_more_info: "Cierra el caso y pide al solicitante nuevas capturas.",
      escalate: "Sube la prioridad y devuelve el caso a la cola para otra persona.",
    },
    confirm: { approve: "Confirmar aprobación", decline: "Confirmar rechazo", request_more_info: "Confirmar solicitud", escalate: "Confirmar escalamiento" },
    noteNeeded: "Esta decisión contradice al motor: escriba por qué.",
    retakeLegend: "Qué debe repetir (ninguna marcada: todas las capturas)",
    applicantMessage: (lang) => `Mensaje para el solicitante (opcional; lo verá tal cual, escríbalo en ${lang})`,
    languages: { es: "español", en: "inglés" },
    search: "Buscar", clear: "Limpiar", searchLabel: "Buscar por caso, número de caso, sesión, CURP o referencia del cliente",
    searchPlaceholder: "CASE-000001, vrf_…, CURP, referencia", found: (n) => `${n} caso(s) encontrados`, notFound: "Ningún caso coincide.",
    team: "Equipo", teamTitle: "Carga del equipo", member: "persona", held: "en mano", claims: "tomados", decided: "decididos",
    meanTime: "tiempo medio", overturned: "revertidas", overrides: "contra el motor", lastDecision: "última decisión",
    reassignTo: "Reasignar a", reassign: "Reasignar", reassignedOk: "Reasignado.",
    noteColumn: "nota", when: "cuándo", what: "qué", who: "quién", outcome: "resultado", reasons: "motivos", at: "a las", by: "por",
    check: "revisión", score: "puntaje", threshold: "umbral", passed: "aprobó", model: "modelo", source: "fuente", matched: "coincide",
    registryStatus: "estado en registro", completed: "completada", system: "sistema",
    openedCase: "abrió el caso", viewedCapture: (k) => `vio la captura ${k}`,
    help: [["j / ↓", "siguiente caso de la cola"], ["k / ↑", "caso anterior de la cola"], ["Intro", "abrir el caso enfocado"],
           ["n", "abrir el siguiente caso"], ["c", "tomar el caso"], ["r", "liberar el caso"], ["a", "aprobar…"], ["d", "rechazar…"],
           ["m", "pedir más información…"], ["e", "escalar…"], ["t", "escribir una nota"], ["z", "ampliar la primera captura"],
           ["/", "buscar"], ["?", "esta ayuda"], ["Esc", "cerrar un diálogo"]],
  },
  en: {
    title: "Review console", language: "Language", live: "live", shortcuts: "Shortcuts (?)", signOut: "Sign out",
    signIn: "Sign in", secret: "Reviewer secret", environment: "Environment", signInButton: "Sign in",
    signInFailed: "Sign-in failed.", signInRefused: "That secret is not valid: check the one your supervisor gave you.",
    signInThrottled: "Too many attempts: wait a minute and try again.", sessionEnded: "Your session ended: sign in again.",
    queue: "Queue", status: "status", priority: "priority", scope: "scope", mine: "mine", more: "More",
    unfinished: "unfinished", anyPriority: "any priority", all: "all", unassigned: "unassigned", assigned: "assigned",
    placeholder: "Open a case from the queue (Enter, or n for the next one). Opening a case shows the applicant's personal data and is recorded in the audit log: once per visit.",
    opening: "Opening…", reason: "Reason", noteOptional: "Note (optional)", noteRequired: "Note (required: the decision overrides the engine)",
    cancel: "Cancel", close: "Close", zoomIn: "Zoom in", zoomOut: "Zoom out",
    shortcutsTitle: "Keyboard shortcuts",
    claim: "Claim", claimed: "Claimed", release: "Release", approve: "Approve", decline: "Decline",
    request_more_info: "Ask for more", escalate: "Escalate", note: "Add note", notePlaceholder: "A note for the case log (sealed; shown only here)",
    applicant: "Applicant", noApplicant: "No personal data is held for this case (no person, or erased).",
    documentRead: "No person is linked: what the document says, as the verification read it.",
    verification: "Verification", checks: "Checks", biometrics: "Biometrics", document: "Document",
    registry: "Registries (RENAPO / INE)", fieldsVsRegistry: "Document against the registries",
    fieldColumn: "field", onFile: "on file", registryAnswer: "registry's answer", captures: "Captures", compare: "Face comparison", decisions: "Decisions",
    history: "History", viewers: "Who viewed this case", views: (n, o) => `${n} accesses, ${o} openings of the case`,
    noViewers: "Nobody else has viewed it.", opened: "opened", sla: "SLA", finished: "finished", heldBy: "held by", you: "you",
    byKey: "a key", free: "unassigned", awaitingSecond: (a) => `awaiting a second approval (${a})`,
    overdue: (t) => `overdue by ${t}`, dueIn: (t) => `due in ${t}`,
    trust: "trust", faceMatch: "face match", liveness: "liveness", session: "session",
    latest: (o, r) => `latest verdict: ${o} · reasons: ${r}`,
    loading: "loading…", purged: "purged", notShownHeld: "shown to the reviewer holding the case", notShownFinished: "shown to supervisors only once finished",
    notAvailable: "not available", enlarge: (k) => `Enlarge ${k}`,
    claimedOk: "Claimed: the case is yours.", releasedOk: "Released to the queue.", noteOk: "Note added.", writeNoteFirst: "Write the note first.",
    secondNeeded: "Recorded: a second reviewer must approve it.", done: (c, s) => `Done: case ${c}, session ${s}.`,
    confirmTitle: (a, id) => `${a}: ${id}`,
    consequence: {
      approve: "Approves the verification: the integrator gets the approved verdict.",
      decline: "Declines the verification: the integrator gets the declined verdict.",
      request_more_info: "Closes the case and asks the applicant for new captures.",
      escalate: "Raises the priority and puts the case back in the queue for someone else.",
    },
    confirm: { approve: "Confirm approval", decline: "Confirm decline", request_more_info: "Confirm request", escalate: "Confirm escalation" },
    noteNeeded: "This decision overrides the engine: say why.",
    retakeLegend: "What to take again (none ticked: every capture)",
    applicantMessage: (lang) => `Message for the applicant (optional; shown as written, write it in ${lang})`,
    languages: { es: "Spanish", en: "English" },
    search: "Search", clear: "Clear", searchLabel: "Search by case, case number, session, CURP or client reference",
    searchPlaceholder: "CASE-000001, vrf_…, CURP, reference", found: (n) => `${n} case(s) found`, notFound: "No case matches.",
    team: "Team", teamTitle: "The team's workload", member: "member", held: "held", claims: "claims", decided: "decided",
    meanTime: "mean time", overturned: "overturned", overrides: "against the engine", lastDecision: "last decision",
    reassignTo: "Reassign to", reassign: "Reassign", reassignedOk: "Reassigned.",
    noteColumn: "note", when: "when", what: "what", who: "who", outcome: "outcome", reasons: "reasons", at: "at", by: "by",
    check: "check", score: "score", threshold: "threshold", passed: "passed", model: "model", source: "source", matched: "matched",
    registryStatus: "registry status", completed: "completed", system: "system",
    openedCase: "opened the case", viewedCapture: (k) => `viewed the ${k} capture`,
    help: [["j / ↓", "next case of the queue"], ["k / ↑", "previous case of the queue"], ["Enter", "open the focused case"],
           ["n", "open the next case"], ["c", "claim the case"], ["r", "release the case"], ["a", "approve…"], ["d", "decline…"],
           ["m", "ask for more information…"], ["e", "escalate…"], ["t", "write a note"], ["z", "enlarge the first capture"],
           ["/", "search"], ["?", "this help"], ["Esc", "close a dialog"]],
  },
};

// API names as people read them.
const LABELS = {
  "es-MX": {
    open: "abierto", in_progress: "en curso", escalated: "escalado", resolved: "resuelto", closed: "cerrado",
    critical: "crítica", high: "alta", medium: "media", low: "baja",
    approved: "aprobada", declined: "rechazada", review: "en revisión", awaiting_input: "espera datos", pending: "pendiente",
    failed: "falló", unavailable: "no disponible", inconclusive: "no concluyente", skipped: "omitida",
    document_front: "documento (frente)", document_back: "documento (reverso)", selfie: "selfie", liveness_video: "video de prueba de vida",
    liveness_frame: "cuadro de prueba de vida", document: "documento", face_match: "coincidencia facial", deepfake: "señales de ataque", gov_curp: "CURP (RENAPO)",
    gov_ine: "INE (lista nominal)", curp: "CURP", ine_list: "lista nominal INE", renapo: "RENAPO", ine: "INE",
    fullName: "nombre", rfc: "RFC", claveElector: "clave de elector", birthDate: "fecha de nacimiento", sex: "sexo",
    nationality: "nacionalidad", state: "estado", email: "correo", phone: "teléfono", true: "sí", false: "no",
    documentNumber: "número de documento", expiryDate: "vigencia",
    reviewer: "revisor", supervisor: "supervisor", passed: "aprobada", liveness: "prueba de vida",
    documentType: "tipo de documento", issuingCountry: "país emisor", outcome: "resultado", confidence: "confianza",
    case_opened: "caso abierto", case_claimed: "caso tomado", case_released: "caso liberado", case_reassigned: "caso reasignado",
    note_added: "nota agregada", case_escalated: "caso escalado", resolution_proposed: "resolución propuesta",
    case_resolved: "caso resuelto", approve: "aprobar", decline: "rechazar", request_more_info: "pedir más", escalate: "escalar",
    needs_review: "requiere revisión", match: "coincide", mismatch: "no coincide", not_compared: "no comparado",
    not_found: "no encontrado", valid: "vigente", not_valid: "no vigente", name: "nombre (letras de la CURP)", cic: "CIC",
    credential: "credencial",
  },
  en: {
    in_progress: "in progress", awaiting_input: "awaiting input", document_front: "document (front)", document_back: "document (back)",
    liveness_video: "liveness video", liveness_frame: "liveness frame", face_match: "face match", deepfake: "attack signals", gov_curp: "CURP (RENAPO)",
    gov_ine: "INE (voter list)", ine_list: "INE voter list", renapo: "RENAPO", ine: "INE", fullName: "full name", claveElector: "voter key",
    birthDate: "birth date", true: "yes", false: "no", not_compared: "not compared", not_found: "not found",
    documentNumber: "document number", expiryDate: "valid until",
    not_valid: "not current", valid: "current", name: "name (the CURP's letters)",
  },
};

const state = {
  token: null, user: null, cursor: null, selected: null, events: null, reasons: [], team: null, searching: false,
  lang: pickLanguage(),
  visit: null,  // {caseId, detail, media: Map(mediaId -> {url, mime} | {error}), notes: [text of the notes written]}
};
const $ = (id) => document.getElementById(id);
const w = (k) => WORDS[state.lang][k] ?? WORDS.en[k] ?? k;
const L = (v) => (v === null || v === undefined) ? "—" : (LABELS[state.lang][String(v)] ?? String(v).replace(/_/g, " "));

function pickLanguage() {
  try {
    const saved = localStorage.getItem("svc.console.lang");
    if (saved === "en" || saved === "es-MX") return saved;
  } catch { /* storage refused: the browser's language */ }
  return (navigator.language || "es").toLowerCase().startsWith("en") ? "en" : "es-MX";
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function api(method, path, body) {
  const headers = { Authorization: "Bearer " + state.token };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status === 401) {
    signOut(w("sessionEnded"));
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

// ---- the page's words -------------------------------------------------------------------------

function applyLanguage() {
  document.documentElement.lang = state.lang;
  document.title = w("title");
  $("lang").value = state.lang;
  for (const e of document.querySelectorAll("[data-t]")) e.textContent = w(e.dataset.t);
  for (const e of document.querySelectorAll("[data-t-label]")) e.setAttribute("aria-label", w(e.dataset.tLabel));
  for (const e of document.querySelectorAll("[data-t-placeholder]")) e.setAttribute("placeholder", w(e.dataset.tPlaceholder));
  const fill = (id, options) => {
    const sel = $(id), keep = sel.value;
    sel.replaceChildren(...options.map(([v, t]) => el("option", { value: v }, t)));
    sel.value = keep || options[0][0];
  };
  fill("f-status", [["", w("unfinished")], ...["open", "in_progress", "escalated", "resolved", "closed"].map((s) => [s, L(s)])]);
  fill("f-priority", [["", w("anyPriority")], ...["critical", "high", "medium", "low"].map((s) => [s, L(s)])]);
  fill("f-scope", [["all", w("all")], ["unassigned", w("unassigned")], ["assigned", w("assigned")]]);
  $("help-list").replaceChildren(...w("help").flatMap(([k, d]) => [el("dt", {}, el("kbd", {}, k)), el("dd", {}, d)]));
  if (state.user) {
    $("who").textContent = `${state.user.label} · ${L(state.user.role)} · ${state.user.environment}`;
    refreshQueue().catch(() => {});
    if (state.visit) renderCase();
  }
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
    // In the page's language, by code: the service's detail is written for integrators, in English.
    const code = data && data.code;
    $("signin-error").textContent = code === "RATE_LIMITED" ? w("signInThrottled")
      : code === "API_KEY_INVALID" ? w("signInRefused") : w("signInFailed");
    $("signin-error").dataset.code = code || "";
    return;
  }
  $("secret").value = "";
  state.token = data.token;
  state.user = data;
  $("signin").hidden = true;
  $("app").hidden = false;
  $("who").hidden = false;
  $("who").textContent = `${data.label} · ${L(data.role)} · ${data.environment}`;
  $("signout").hidden = false;
  openFeed();
  state.reasons = (await api("GET", "/v1/review/reason-codes")).data;
  $("team-button").hidden = data.role !== "supervisor";
  if (data.role === "supervisor") state.team = (await api("GET", "/v1/review/team")).members;
  await refreshQueue();
  const first = $("queue").querySelector("button.case");
  if (first) first.focus();
}

function signOut(message) {
  endVisit();
  state.searching = false;
  state.token = null;
  state.user = null;
  state.selected = null;
  if (state.events) state.events.close();
  state.events = null;
  $("app").hidden = true;
  $("who").hidden = true;
  $("live").hidden = true;
  $("signout").hidden = true;
  $("team-button").hidden = true;
  state.team = null;
  $("signin").hidden = false;
  // Nothing of the session stays on screen or in the page: the search, the filters, the counts,
  // the queue, the case, an open dialog (issue 69).
  for (const d of document.querySelectorAll("dialog[open]")) d.close();
  $("q").value = "";
  $("search-status").textContent = "";
  $("search-clear").hidden = true;
  $("more").hidden = true;
  $("summary").replaceChildren();
  $("f-status").value = "";
  $("f-priority").value = "";
  $("f-scope").value = "all";
  $("f-mine").checked = false;
  $("decide-note").value = "";
  state.reasons = null;
  $("queue").replaceChildren();
  $("detail").replaceChildren(el("p", { class: "placeholder" }, w("placeholder")));
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

function holder(c) {
  if (c.assigneeUserId) return c.assigneeUserId === state.user.userId ? w("you") : w("heldBy") + " " + short(c.assigneeUserId);
  if (c.assigneeApiKeyId) return w("heldBy") + " " + w("byKey");
  return w("free");
}

function caseItem(c) {
  const finished = ["resolved", "closed"].includes(c.status);
  return el("li", { "data-case": c.caseId, class: c.caseId === state.selected ? "selected" : null },
    el("button", { type: "button", class: "case", "aria-current": c.caseId === state.selected ? "true" : null,
                   onclick: () => openCase(c.caseId) },
      el("span", { class: "top" },
        el("strong", {}, c.publicId),
        el("span", {}, el("span", { class: "pill p-" + c.priority }, L(c.priority)), " ",
           el("span", { class: "pill s-" + c.status, "data-status": "" }, L(c.status)))),
      // The reasons in the page's language (the catalogue's labels), never the case's stored
      // English sentence (issue 69, item 9).
      el("span", { class: "sub", "data-reasons": "" }, (c.reasonCodes || []).map(reasonLabel).join(", ") || "—"),
      el("span", { class: "sub" }, finished ? w("finished") : el("span", { "data-sla": c.slaDueAt || "" }, sla(c.slaDueAt)),
         " · ", holder(c))));
}

async function refreshQueue(append) {
  if (!state.token || state.searching) return;
  const [page, summary] = await Promise.all([
    api("GET", "/v1/review/queue?" + queueQuery(append ? state.cursor : null)),
    append ? null : api("GET", "/v1/review/queue/summary"),
  ]);
  if (summary) {
    $("summary").replaceChildren(...["open", "inProgress", "escalated", "resolved", "closed", "total"].map(
      (k) => el("span", { "data-count": k }, `${k === "inProgress" ? L("in_progress") : k === "total" ? "total" : L(k)} ${summary[k] ?? 0}`)));
  }
  const focused = document.activeElement?.closest?.("#queue li")?.dataset.case;
  const items = page.data.map(caseItem);
  if (append) $("queue").append(...items); else $("queue").replaceChildren(...items);
  if (focused) $("queue").querySelector(`li[data-case="${focused}"] button`)?.focus();
  state.cursor = page.nextCursor;
  $("more").hidden = !page.hasMore;
  tickSla();
}

// Search (GET /v1/review/search): a case id, a case number, a session id, a CURP (through the
// blind index) or the integrator's client reference. The results replace the queue until cleared.
async function search(ev) {
  ev.preventDefault();
  const q = $("q").value.trim();
  if (!q) return clearSearch();
  const found = await api("GET", "/v1/review/search?q=" + encodeURIComponent(q));
  state.searching = true;
  $("queue").replaceChildren(...found.data.map(caseItem));
  $("more").hidden = true;
  $("search-clear").hidden = false;
  $("search-status").textContent = found.data.length ? w("found")(found.data.length) : w("notFound");
  tickSla();
  $("queue").querySelector("button.case")?.focus();
}
function clearSearch() {
  state.searching = false;
  $("q").value = "";
  $("search-clear").hidden = true;
  $("search-status").textContent = "";
  refreshQueue().catch(() => {});
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
  if (state.visit && entry.caseId === state.visit.caseId) {
    const badge = document.querySelector("#detail [data-case-status]");
    if (badge) { badge.textContent = L(entry.status); badge.className = "pill s-" + entry.status; }
  }
}

// ---- a visit of a case ------------------------------------------------------------------------

function endVisit() {
  if (!state.visit) return;
  for (const m of state.visit.media.values()) if (m.url) URL.revokeObjectURL(m.url);
  state.visit = null;
}

// Opening a case starts a visit: one audited opening (GET /v1/review/cases/{id}). Selecting the
// case already open keeps the visit.
async function openCase(id) {
  state.selected = id;
  for (const li of $("queue").children) {
    li.classList.toggle("selected", li.dataset.case === id);
    li.querySelector("button")?.toggleAttribute("aria-current", li.dataset.case === id);
  }
  if (state.visit && state.visit.caseId === id) { $("detail").focus(); return; }
  endVisit();
  $("detail").replaceChildren(el("p", { class: "placeholder" }, w("opening")));
  try {
    const detail = await api("GET", "/v1/review/cases/" + id);
    state.visit = { caseId: id, detail, media: new Map(), notes: [] };
    renderCase();
    $("detail").focus();
    loadMedia();
  } catch (e) {
    $("detail").replaceChildren(el("p", { class: "notice bad", role: "alert" }, e.message));
  }
}

// The case's state after an action, merged into the visit: the applicant and the notes' bodies
// stay those of the opening (and the notes written during the visit), nothing is reopened.
async function refreshVisit(notice) {
  const v = state.visit;
  const st = await api("GET", `/v1/review/cases/${v.caseId}/state`);
  const known = v.detail.events || [];
  let mine = 0;
  st.events = st.events.map((e, i) => {
    if (i < known.length) return { ...e, body: known[i].body };
    if (e.sealed && e.actorId === state.user.userId && mine < v.notes.length) return { ...e, body: v.notes[mine++] };
    return e;
  });
  v.notes = v.notes.slice(mine);
  v.detail = { ...st, object: "review_case_detail", applicant: v.detail.applicant };
  renderCase(notice);
  loadMedia();
}

function entitledToCaptures(c) {
  if (state.user.role === "supervisor") return true;
  const open = !["resolved", "closed"].includes(c.status);
  const free = !c.assigneeUserId && !c.assigneeApiKeyId;
  return open && (free || c.assigneeUserId === state.user.userId);
}

// Each capture's bytes are fetched once per visit, with the token, and shown from a blob: URL
// (CSP allows img-src blob:); they stay in memory only, and go when the visit ends.
async function loadMedia() {
  const v = state.visit;
  if (!v || !entitledToCaptures(v.detail.case)) return;
  for (const m of v.detail.media || []) {
    if (!m.url || v.media.has(m.mediaId)) continue;
    v.media.set(m.mediaId, { loading: true });
    try {
      const r = await fetch(m.url, { headers: { Authorization: "Bearer " + state.token } });
      if (!r.ok) { v.media.set(m.mediaId, { error: r.status }); continue; }
      v.media.set(m.mediaId, { url: URL.createObjectURL(await r.blob()), mime: m.mime });
    } catch {
      v.media.set(m.mediaId, { error: "network" });
    }
    if (state.visit === v) fillCapture(m);
  }
}

function captureSlot(m) {
  return el("figure", { "data-media": m.mediaId, "data-kind": m.kind },
    el("div", { class: "slot" }),
    el("figcaption", {}, `${L(m.kind)} · ${Math.round((m.sizeBytes || 0) / 1024)} KiB`));
}

function fillCapture(m) {
  const slot = document.querySelector(`[data-media="${m.mediaId}"] .slot`);
  if (!slot) return;
  const v = state.visit, c = v.detail.case, got = v.media.get(m.mediaId);
  if (!m.url) return slot.replaceChildren(w("purged"));
  if (!got) {
    return slot.replaceChildren(entitledToCaptures(c) ? w("loading")
      : ["resolved", "closed"].includes(c.status) ? w("notShownFinished") : w("notShownHeld"));
  }
  if (got.loading) return slot.replaceChildren(w("loading"));
  if (got.error) return slot.replaceChildren(w("notAvailable") + (typeof got.error === "number" ? ` (${got.error})` : ""));
  if (got.mime.startsWith("video/")) {
    return slot.replaceChildren(el("video", { src: got.url, controls: true, muted: true, "aria-label": L(m.kind) }));
  }
  slot.replaceChildren(el("button", { type: "button", class: "zoomable", "aria-label": w("enlarge")(L(m.kind)),
                                      onclick: () => openZoom(m) },
    el("img", { src: got.url, alt: L(m.kind) })));
}

// ---- rendering a case -------------------------------------------------------------------------

function renderCase(notice) {
  const d = state.visit.detail;
  const c = d.case, s = d.session, a = d.applicant;
  const actions = Object.fromEntries((d.actions || []).map((x) => [x.action, x]));
  const allowed = (k) => actions[k] && actions[k].allowed;
  const note = el("textarea", { id: "note", "aria-label": w("notePlaceholder"), placeholder: w("notePlaceholder"), maxlength: "4000" });
  const act = (action, key, cls) =>
    el("button", { type: "button", class: cls, "data-action": action, disabled: !allowed(action), "aria-keyshortcuts": key,
                   title: actions[action]?.refusal || null, onclick: () => startAction(action) }, w(action), " ", el("kbd", {}, key));
  const finished = ["resolved", "closed"].includes(c.status);
  const out = [
    el("h2", {}, c.publicId, " ", el("span", { class: "pill p-" + c.priority }, L(c.priority)), " ",
       el("span", { class: "pill s-" + c.status, "data-case-status": "" }, L(c.status))),
    el("p", { class: "meta" }, `${w("opened")} ${fmt(c.createdAt)} · `,
       finished ? `${w("finished")} ${fmt(c.resolvedAt)}: ${L(c.resolution)}` : el("span", { "data-sla": c.slaDueAt || "" }, sla(c.slaDueAt)),
       " · ", holder(c), c.awaitingSecondApproval ? " · " + w("awaitingSecond")(L(c.proposedResolution?.action)) : ""),
    notice ? el("p", { class: "notice " + (notice.ok ? "ok" : "bad"), role: notice.ok ? "status" : "alert" }, notice.text) : null,
    el("div", { class: "actions" },
      c.assigneeUserId === state.user.userId && !finished ? el("button", { type: "button", disabled: true }, w("claimed"))
                                                          : act("claim", "c"),
      act("release", "r"), act("approve", "a", "approve"), act("decline", "d", "decline"),
      act("request_more_info", "m"), act("escalate", "e")),
    note,
    el("div", { class: "actions" }, el("button", { type: "button", id: "add-note", "data-action": "note", disabled: !allowed("note"),
                                                   "aria-keyshortcuts": "t", onclick: () => runAction("note", { note: note.value }) },
                                       w("note"))),
    state.team && !finished ? reassignControl(c) : null,
  ];
  // Side by side: the selfie, the scores, the document's photo; then the other captures.
  const media = d.media || [];
  const byKind = (k) => media.find((m) => m.kind === k);
  const selfie = byKind("selfie"), front = byKind("document_front");
  if (selfie || front) {
    out.push(el("h3", {}, w("compare")), el("div", { class: "compare", id: "compare" },
      selfie ? captureSlot(selfie) : el("div"),
      el("div", { class: "scores vertical" }, score(w("faceMatch"), s?.faceMatchScore), score(w("liveness"), s?.livenessScore)),
      front ? captureSlot(front) : el("div")));
  }
  const rest = media.filter((m) => m !== selfie && m !== front);
  out.push(el("h3", {}, w("captures")), el("div", { class: "media", id: "media" }, ...rest.map(captureSlot)));
  out.push(el("h3", {}, w("applicant")),
    a ? el("dl", { class: "grid", id: "applicant" },
          ...["fullName", "curp", "rfc", "claveElector", "birthDate", "sex", "nationality", "state", "email", "phone"]
            .flatMap((k) => [el("dt", {}, L(k)), el("dd", { "data-field": k }, a[k] ?? "—")]))
      : d.documentRead
        ? el("div", {}, el("p", { class: "meta", id: "document-read-note" }, w("documentRead")),
            el("dl", { class: "grid", id: "document-read" },
              ...["fullName", "curp", "birthDate", "sex", "documentNumber", "claveElector", "expiryDate"]
                .flatMap((k) => [el("dt", {}, L(k)), el("dd", { "data-field": k }, d.documentRead[k] ?? "—")])))
        : el("p", { class: "meta" }, w("noApplicant")));
  if (s) {
    out.push(el("h3", {}, w("verification")),
      el("div", { class: "scores" },
        score(w("trust"), s.trustScore), score(w("faceMatch"), s.faceMatchScore), score(w("liveness"), s.livenessScore),
        el("div", { class: "score" }, el("b", {}, L(s.status)), w("session"))),
      el("p", { class: "meta" }, w("latest")(L(s.outcome), (s.reasonCodes || []).join(", ") || "—")));
    if (s.checks && s.checks.length) {
      out.push(el("h3", {}, w("checks")), table([w("check"), w("outcome"), w("reasons"), w("completed")],
        s.checks.map((x) => [L(x.step), L(x.status), (x.reasonCodes || []).join(", "), fmt(x.completedAt)])));
    }
    if (s.biometric && s.biometric.length) {
      out.push(el("h3", {}, w("biometrics")), table([w("check"), w("score"), w("threshold"), w("passed"), w("model")],
        s.biometric.map((b) => [L(b.checkType), num(b.score), num(b.threshold), L(b.passed), b.modelName ?? "—"])));
    }
    if (s.document) {
      out.push(el("h3", {}, w("document")), el("dl", { class: "grid" },
        ...Object.entries(s.document).filter(([, v]) => v !== null && typeof v !== "object")
          .flatMap(([k, v]) => [el("dt", {}, L(k)), el("dd", {}, L(v))])));
    }
  }
  if (d.govLookups && d.govLookups.length) {
    out.push(el("h3", {}, w("registry")), table([w("source"), w("check"), w("outcome"), w("matched"), w("registryStatus"), w("reasons")],
      d.govLookups.map((g) => [L(g.source), L(g.check), L(g.outcome), L(g.matched), g.registryStatus ?? "—", (g.reasonCodes || []).join(", ")]),
      (g) => g.matched === false ? "mismatch" : null, d.govLookups));
    // Field by field: what each registry said of the document's reading, next to the value on
    // file (the applicant's, already opened by this visit); a mismatch is marked.
    const rows = d.govLookups.flatMap((g) => Object.entries(g.fields || {}).map(([field, verdict]) => ({ g, field, verdict })));
    if (rows.length) {
      // The applicant's value; without a person, what the document said (issue 69, item 9).
      const held = a || d.documentRead;
      const onFile = (f) => held ? (f === "name" ? held.fullName : f === "cic" || f === "credential" ? held.claveElector : held[f]) ?? "—" : "—";
      out.push(el("h3", {}, w("fieldsVsRegistry")), table([w("fieldColumn"), w("onFile"), w("source"), w("registryAnswer")],
        rows.map((r) => [L(r.field), onFile(r.field), L(r.g.source), L(r.verdict)]),
        (r) => ["mismatch", "not_found", "not_valid"].includes(r.verdict) ? "mismatch" : null, rows, "fields-vs-registry"));
    }
  }
  out.push(el("h3", {}, w("decisions")), table([w("by"), w("outcome"), w("reasons"), w("at")],
    (d.decisions || []).map((x) => [x.decidedBy + (x.reviewers ? " (" + x.reviewers.map((r) => short(r.id)).join(", ") + ")" : ""),
                                     L(x.outcome), (x.reasonCodes || []).map(reasonLabel).join(", "), fmt(x.decidedAt)])));
  out.push(el("h3", {}, w("history")), table([w("when"), w("what"), w("who"), w("noteColumn")],
    (d.events || []).map((e) => [fmt(e.createdAt), L(e.eventType.replace("review.", "")) + (e.action ? " · " + L(e.action) : ""),
                                 e.actorType === "system" ? w("system") : short(e.actorUserId || e.actorId || ""), e.body ?? ""]),
    null, null, "history"));
  const viewers = d.viewers || { entries: [], total: 0, openings: 0 };
  out.push(el("h3", {}, w("viewers")), el("p", { class: "meta" }, w("views")(viewers.total, viewers.openings)),
    viewers.entries.length ? table([w("when"), w("who"), w("what")],
      viewers.entries.map((x) => [fmt(x.at), x.actorLabel ? `${x.actorLabel} · ${L(x.actorRole)}` : short(x.actorId),
                                  x.channel === "review_case" ? w("openedCase") : w("viewedCapture")(L((x.fields[0] || "").replace("capture:", "")))]),
      null, null, "viewers") : el("p", { class: "meta" }, w("noViewers")));
  $("detail").replaceChildren(...out.filter(Boolean));
  $("detail").dataset.case = c.caseId;
  for (const m of media) fillCapture(m);
  tickSla();
}

// A supervisor hands a case to any active reviewer of the team.
function reassignControl(c) {
  const people = state.team.filter((m) => m.actorType === "user" && !m.disabled && m.actorId !== c.assigneeUserId);
  if (!people.length) return null;
  const select = el("select", { id: "reassign-to", "aria-label": w("reassignTo") },
    ...people.map((m) => el("option", { value: m.actorId }, `${m.label} · ${L(m.role)}`)));
  return el("div", { class: "actions" }, el("label", { class: "check" }, w("reassignTo"), " ", select),
    el("button", { type: "button", "data-action": "reassign", onclick: () => runAction("reassign", { user: select.value }) },
       w("reassign")));
}

async function showTeam() {
  const team = await api("GET", "/v1/review/team");
  state.team = team.members;
  const mins = (s) => (typeof s === "number" ? span(s * 1000) : "—");
  $("team-body").replaceChildren(table([w("member"), w("held"), w("claims"), w("decided"), w("meanTime"), w("overturned"),
                                        w("overrides"), w("lastDecision")],
    team.members.map((m) => [m.label ? `${m.label} · ${L(m.role)}` : short(m.actorId), m.held, m.claims, m.decided,
                             mins(m.meanDecisionSeconds), m.overturned, m.overrides, fmt(m.lastDecisionAt)]), null, null, "team-table"));
  $("team").showModal();
}

function reasonLabel(code) {
  const r = (state.reasons || []).find((x) => x.code === code);
  return r ? `${r.label[state.lang] ?? r.label.en} (${code})` : code;
}

// ---- deciding ---------------------------------------------------------------------------------

// Approve, decline, ask for more and escalate go through the confirmation: a reason from the
// catalogue, and a note (required when the decision overrides the engine).
function startAction(action) {
  if (["claim", "release"].includes(action)) return runAction(action);
  const v = state.visit;
  const item = (v.detail.actions || []).find((x) => x.action === action);
  if (!item || !item.allowed) return;
  const dlg = $("decide");
  dlg.dataset.action = action;
  $("decide-title").textContent = w("confirmTitle")(w(action), v.detail.case.publicId);
  $("decide-consequence").textContent = w("consequence")[action];
  // A capture to take again is a box to tick (several may be); the other reasons are the choice.
  const reasons = state.reasons.filter((r) => r.action === action && !r.capture);
  $("decide-reason").replaceChildren(...reasons.map((r) =>
    el("option", { value: r.code, selected: r.default || null }, `${r.label[state.lang] ?? r.label.en} (${r.code})`)));
  const retakes = state.reasons.filter((r) => r.action === action && r.capture);
  const asking = action === "request_more_info";
  $("decide-retake").hidden = !asking || retakes.length === 0;
  $("decide-captures").replaceChildren(...retakes.map((r) =>
    el("label", { class: "check" }, el("input", { type: "checkbox", value: r.code, "data-retake": r.capture }),
       ` ${r.label[state.lang] ?? r.label.en}`)));
  $("decide-message-wrap").hidden = !asking;
  const lang = String(v.detail.session?.locale || "es-MX").slice(0, 2).toLowerCase();
  $("decide-message-label").textContent = w("applicantMessage")(w("languages")[lang] || lang);
  $("decide-message").value = "";
  $("decide-message").lang = lang;
  const required = !!item.noteRequired;
  $("decide-note").required = required;
  $("decide-note").value = $("note")?.value || "";
  $("decide-note-label").textContent = required ? w("noteRequired") : w("noteOptional");
  $("decide-confirm").textContent = w("confirm")[action];
  $("decide-error").textContent = "";
  dlg.showModal();
  $("decide-reason").focus();
}

async function confirmDecision(ev) {
  ev.preventDefault();
  const action = $("decide").dataset.action;
  const noteText = $("decide-note").value.trim();
  if ($("decide-note").required && !noteText) {
    $("decide-error").textContent = w("noteNeeded");
    $("decide-note").focus();
    return;
  }
  $("decide").close();
  const retakes = action === "request_more_info"
    ? [...$("decide-captures").querySelectorAll("input:checked")].map((x) => x.value) : [];
  const message = action === "request_more_info" ? $("decide-message").value.trim() : "";
  await runAction(action, { reasonCodes: [$("decide-reason").value, ...retakes], note: noteText, message });
}

async function runAction(action, input = {}) {
  const v = state.visit;
  if (!v) return;
  const id = v.caseId;
  let notice;
  try {
    if (action === "claim") {
      await api("POST", `/v1/review/cases/${id}/claim`);
      notice = { ok: true, text: w("claimedOk") };
    } else if (action === "release") {
      await api("POST", `/v1/review/cases/${id}/release`, undefined);
      notice = { ok: true, text: w("releasedOk") };
    } else if (action === "reassign") {
      await api("POST", `/v1/review/cases/${id}/reassign`, { assigneeUserId: input.user });
      notice = { ok: true, text: w("reassignedOk") };
    } else if (action === "note") {
      if (!input.note || !input.note.trim()) throw new Error(w("writeNoteFirst"));
      await api("POST", `/v1/review/cases/${id}/notes`, { note: input.note });
      v.notes.push(input.note);
      notice = { ok: true, text: w("noteOk") };
    } else {
      const body = { action, reasonCodes: input.reasonCodes };
      if (input.note) body.note = input.note;
      if (input.message) body.applicantMessage = input.message;
      const r = await api("POST", `/v1/review/cases/${id}/resolve`, body);
      if (input.note) v.notes.push(input.note);
      notice = r.awaitingSecondApproval ? { ok: true, text: w("secondNeeded") }
                                        : { ok: true, text: w("done")(L(r.caseStatus), L(r.sessionStatus)) };
    }
  } catch (e) {
    notice = { ok: false, text: (e.code ? e.code + ": " : "") + e.message };
  }
  // The case's state (no reveal) and the queue; the visit's captures stay as they are.
  try {
    if (state.visit === v) await refreshVisit(notice);
  } catch (e) {
    $("detail").replaceChildren(el("p", { class: "notice bad", role: "alert" }, e.message));
  }
  refreshSoon();
  $("detail").focus();
}

// ---- zoom -------------------------------------------------------------------------------------

let zoomScale = 1;
function openZoom(m) {
  const got = state.visit && state.visit.media.get(m.mediaId);
  if (!got || !got.url) return;
  $("zoom-title").textContent = L(m.kind);
  const img = el("img", { src: got.url, alt: L(m.kind) });
  $("zoom-frame").replaceChildren(img);
  zoomScale = 1;
  img.addEventListener("load", () => setZoom(1));
  $("zoom").showModal();
  $("zoom-frame").focus();
}
function setZoom(scale) {
  zoomScale = Math.min(6, Math.max(0.25, scale));
  const img = $("zoom-frame").querySelector("img");
  if (img && img.naturalWidth) img.style.width = Math.round(img.naturalWidth * zoomScale) + "px";  // CSSOM: allowed by the CSP
  $("zoom-level").textContent = Math.round(zoomScale * 100) + "%";
}

// ---- keyboard ---------------------------------------------------------------------------------

function moveInQueue(step) {
  const buttons = [...$("queue").querySelectorAll("button.case")];
  if (!buttons.length) return;
  const at = buttons.indexOf(document.activeElement);
  const next = at < 0 ? (step > 0 ? 0 : buttons.length - 1) : Math.min(buttons.length - 1, Math.max(0, at + step));
  buttons[next].focus();
}

function openNext() {
  const items = [...$("queue").querySelectorAll("li[data-case]")];
  if (!items.length) return;
  const at = items.findIndex((li) => li.dataset.case === state.selected);
  const next = items[(at + 1) % items.length] || items[0];
  next.querySelector("button").focus();
  openCase(next.dataset.case);
}

function onKey(ev) {
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  if ($("zoom").open) {
    if (ev.key === "+" || ev.key === "=") { setZoom(zoomScale * 1.25); ev.preventDefault(); }
    if (ev.key === "-") { setZoom(zoomScale / 1.25); ev.preventDefault(); }
    return;
  }
  if ($("decide").open || $("help").open || $("team").open || !state.token) return;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
  const inQueue = t && t.closest && t.closest("#queue");
  const key = ev.key;
  const run = (f) => { ev.preventDefault(); f(); };
  if (key === "?") return run(() => $("help").showModal());
  if (key === "/") return run(() => $("q").focus());
  if (key === "j" || (key === "ArrowDown" && inQueue)) return run(() => moveInQueue(1));
  if (key === "k" || (key === "ArrowUp" && inQueue)) return run(() => moveInQueue(-1));
  if (key === "n") return run(openNext);
  if (!state.visit) return;
  const actions = { c: "claim", r: "release", a: "approve", d: "decline", m: "request_more_info", e: "escalate" };
  if (actions[key]) {
    const b = document.querySelector(`#detail button[data-action="${actions[key]}"]`);
    if (b && !b.disabled) run(() => startAction(actions[key]));
    return;
  }
  if (key === "t") return run(() => $("note")?.focus());
  if (key === "z") {
    const first = document.querySelector("#detail button.zoomable");
    if (first) run(() => first.click());
  }
}

// ---- formatting -------------------------------------------------------------------------------

// Local time, with the zone shown.
function fmt(t) {
  if (!t) return "—";
  return new Intl.DateTimeFormat(state.lang, { year: "numeric", month: "short", day: "numeric", hour: "2-digit",
                                              minute: "2-digit", timeZoneName: "short" }).format(new Date(t));
}
function span(ms) {
  const m = Math.round(Math.abs(ms) / 60000);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ${m % 60} min` : `${Math.floor(h / 24)} d`;
}
function sla(due) {
  if (!due) return w("sla") + " —";
  const left = new Date(due).getTime() - Date.now();
  return `${w("sla")} ${left < 0 ? w("overdue")(span(left)) : w("dueIn")(span(left))}`;
}
// The countdowns move on their own; overdue ones are marked.
function tickSla() {
  for (const e of document.querySelectorAll("[data-sla]")) {
    e.textContent = sla(e.dataset.sla || null);
    e.classList.toggle("overdue", !!e.dataset.sla && new Date(e.dataset.sla).getTime() < Date.now());
  }
}
function short(id) { return id ? id.slice(0, 8) + "…" + id.slice(-4) : ""; }
function num(x) { return typeof x === "number" ? x.toFixed(2) : "—"; }
function score(label, v) { return el("div", { class: "score" }, el("b", {}, num(v)), label); }
function table(head, rows, rowClass, source, id) {
  return el("table", { id: id || null }, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, ...rows.map((r, i) => el("tr", { class: rowClass && source ? rowClass(source[i]) : null },
                                             ...r.map((c) => el("td", {}, c ?? ""))))));
}

// ---- wiring -----------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  applyLanguage();
  $("lang").addEventListener("change", () => {
    state.lang = $("lang").value;
    try { localStorage.setItem("svc.console.lang", state.lang); } catch { /* not kept */ }
    applyLanguage();
  });
  $("signin-form").addEventListener("submit", (e) => signIn(e).catch((x) => { $("signin-error").textContent = x.message; }));
  $("signout").addEventListener("click", () => signOut());
  for (const id of ["f-status", "f-priority", "f-scope", "f-mine"]) $(id).addEventListener("change", () => refreshQueue());
  $("more").addEventListener("click", () => refreshQueue(true));
  $("search").addEventListener("submit", (e) => search(e).catch((x) => { $("search-status").textContent = x.message; }));
  $("search-clear").addEventListener("click", () => clearSearch());
  $("decide-form").addEventListener("submit", (e) => confirmDecision(e));
  $("decide-cancel").addEventListener("click", () => $("decide").close());
  $("help-button").addEventListener("click", () => $("help").showModal());
  $("help-close").addEventListener("click", () => $("help").close());
  $("team-button").addEventListener("click", () => showTeam().catch(() => {}));
  $("team-close").addEventListener("click", () => $("team").close());
  $("zoom-close").addEventListener("click", () => $("zoom").close());
  $("zoom-in").addEventListener("click", () => setZoom(zoomScale * 1.25));
  $("zoom-out").addEventListener("click", () => setZoom(zoomScale / 1.25));
  document.addEventListener("keydown", onKey);
  setInterval(tickSla, 30000);
});
