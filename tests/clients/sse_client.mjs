// Reads a verification progress stream with the `eventsource` npm package (a WHATWG EventSource
// nobody here wrote), exactly as an integrator's Node backend or a browser would: it follows the
// server's `retry:` and reconnects with Last-Event-ID on its own.
//
//   node sse_client.mjs <url> <api key> <give up after ms> [Last-Event-ID]
//
// Prints one JSON line: {"events":[{id,type}], "connections":n, "closed":bool, "error":...}.
// `closed` is true when the client itself gave up reconnecting (readyState CLOSED), which is
// what a finished session's stream must make it do.
import { EventSource } from "eventsource";

const [url, key, giveUpMs, lastEventId] = process.argv.slice(2);
const types = [
  "verification.session_created", "verification.consent_recorded",
  "verification.media_captured", "verification.liveness_challenge_issued",
  "verification.session_submitted", "verification.stage_completed",
  "verification.approved", "verification.declined", "verification.review_required",
  "verification.more_info_requested", "verification.session_expired",
];
const out = { events: [], connections: 0, statuses: [], closed: false, error: null };
let first = true;
const es = new EventSource(url, {
  fetch: async (input, init) => {
    out.connections += 1;
    const headers = { ...(init.headers || {}), Authorization: `Bearer ${key}` };
    if (first && lastEventId) headers["Last-Event-ID"] = lastEventId;
    first = false;
    const res = await fetch(input, { ...init, headers });
    out.statuses.push(res.status);
    return res;
  },
});
for (const t of types) {
  es.addEventListener(t, (e) => out.events.push({ id: e.lastEventId, type: e.type }));
}
const finish = () => {
  out.closed = es.readyState === EventSource.CLOSED;
  es.close();
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(0);
};
es.onerror = (e) => {
  if (es.readyState === EventSource.CLOSED) {
    out.error = e && e.message ? e.message : null;
    finish();
  }
};
setTimeout(finish, Number(giveUpMs));
