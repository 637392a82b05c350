#!/usr/bin/env bash
# The review console worked with the keyboard alone (issue 36's benchmark): CONSOLE_CASES cases
# (20) opened by real sandbox verifications (consent, four captures, submit: the engine sends each
# to review), one reviewer, and tests/browser/console_bench.mjs: n, c, a, Enter per case in
# headless Debian chromium. Reports the total and the median and worst case.
#   scripts/bench.d/console.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
CASES=${CONSOLE_CASES:-20}
[ -d tests/browser/node_modules/playwright-core ] || (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)

start_svc --dev-bootstrap
[ -n "$KEY" ] || { echo "console: no development key in the server's output" >&2; exit 1; }
TENANT=$(sed -n 's/.*Development tenant created: \(ten_[0-9a-f]*\).*/\1/p' "$WORK/svc.out")
SECRET=$("$SVC" admin user create --data-dir "$WORK/data" --tenant "$TENANT" --name "bench reviewer" 2>/dev/null |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])')
python3 - "$BASE" "$KEY" "$CASES" docs/samples <<'PY'
import http.client, json, sys, time, uuid
base, key, cases, samples = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
host, port = base.split("//")[1].split(":")
def call(method, path, body=None, headers=None, raw=None):
    c = http.client.HTTPConnection(host, int(port), timeout=60)
    h = {"Authorization": "Bearer " + key}
    if body is not None: h["Content-Type"] = "application/json"
    h.update(headers or {})
    c.request(method, path, raw if raw is not None else (json.dumps(body) if body is not None else None), h)
    r = c.getresponse(); b = r.read()
    assert r.status < 300, (path, r.status, b[:300])
    return json.loads(b) if b else None
files = [("document_front", "image/jpeg", "front.jpg"), ("document_back", "image/jpeg", "back.jpg"),
         ("selfie", "image/jpeg", "selfie.jpg"), ("liveness_video", "video/mp4", "video.mp4")]
blobs = {name: open(f"{samples}/{name}", "rb").read() for _, _, name in files}
ids = []
for i in range(cases):
    s = call("POST", "/v1/verification-sessions", {"channel": "api", "policy": {"testOutcome": "review"}},
             {"Idempotency-Key": uuid.uuid4().hex})["id"]
    call("POST", f"/v1/verification-sessions/{s}/consent", {"accepted": True})
    for kind, mime, name in files:
        b = "----bench" + uuid.uuid4().hex
        raw = (f"--{b}\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\n{kind}\r\n"
               f"--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: {mime}\r\n\r\n").encode() \
              + blobs[name] + f"\r\n--{b}--\r\n".encode()
        call("POST", f"/v1/verification-sessions/{s}/media", headers={"Content-Type": "multipart/form-data; boundary=" + b}, raw=raw)
    call("POST", f"/v1/verification-sessions/{s}/submit")
    ids.append(s)
for s in ids:  # the engine's verdicts (a benchmark may poll)
    for _ in range(600):
        if call("GET", f"/v1/verification-sessions/{s}")["status"] == "review": break
        time.sleep(0.1)
    else:
        sys.exit(f"console: {s} never reached review")
print(f"console: {cases} cases opened by sandbox verifications", flush=True)
PY
node tests/browser/console_bench.mjs "$BASE" "$SECRET" "$CASES" > "$WORK/console.json"
python3 - "$WORK/console.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
assert "error" not in r, r.get("error")
per = r["perCaseMs"]
print(f"console: a reviewer worked {r['cases']} cases with the keyboard alone (n, c, a, Enter) in "
      f"{r['totalMs'] / 1000:.1f} s: median {statistics.median(per):.0f} ms a case, worst {max(per)} ms")
PY
