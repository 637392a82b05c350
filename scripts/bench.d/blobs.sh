#!/usr/bin/env bash
# Captures on both blob backends (issue 33), through the API of a Release svc: the upload of a
# BLOB_MIB (20) MiB liveness video (the server's peak RSS above what it held just before, and
# MiB/s), a media link's view of it (time to first byte, total, peak RSS above idle), and a whole
# verification of the four minimal captures (create to verdict), on the data directory and on an
# S3 bucket (the tests' signature-checking S3 server on loopback). Medians of BLOB_RUNS runs.
#   scripts/bench.d/blobs.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
MIB=${BLOB_MIB:-20}
RUNS=${BLOB_RUNS:-3}
[ -d tests/s3/node_modules/s3rver ] || (cd tests/s3 && npm ci --no-audit --no-fund --loglevel=error)

node tests/s3/server.mjs "$WORK/s3" svc-bench > "$WORK/s3.out" 2> "$WORK/s3.err" &
watch_pid $!
for _ in $(seq 300); do grep -q '^port ' "$WORK/s3.out" && break; sleep 0.1; done
S3_PORT=$(sed -n 's/^port //p' "$WORK/s3.out")
[ -n "$S3_PORT" ] || { cat "$WORK/s3.err" >&2; exit 1; }

for backend in local s3; do
  rm -rf "$WORK/data"
  if [ "$backend" = s3 ]; then
    AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER start_svc --dev-bootstrap --blob-store s3 \
      --s3-endpoint "http://127.0.0.1:$S3_PORT" --s3-bucket svc-bench --s3-prefix media/ --s3-path-style
  else
    start_svc --dev-bootstrap
  fi
  [ -n "${KEY:-}" ] || { echo "blobs: no development key in the server's output" >&2; exit 1; }
  python3 - "$BASE" "$KEY" "$SVC_PID" "$MIB" "$RUNS" "$backend" <<'PY'
import http.client, json, os, statistics, sys, time, urllib.parse
base, key, pid, mib, runs, backend = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
host = urllib.parse.urlparse(base)
JPEG = lambda w, h: (b"\xFF\xD8\xFF\xE0" + b"\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\xFF\xC0\x00\x11\x08" +
                     bytes([h >> 8, h & 255, w >> 8, w & 255]) + b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01\xFF\xD9")
MP4 = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2" + b"\x00\x00\x00\x10mdat" + b"\x00" * 8

def call(method, path, body=None, headers=None):
    c = http.client.HTTPConnection(host.hostname, host.port, timeout=300)
    h = {"Authorization": "Bearer " + key}
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode(); h["Content-Type"] = "application/json"
    h.update(headers or {})
    c.request(method, path, body=body, headers=h)
    r = c.getresponse(); data = r.read(); c.close()
    if r.status >= 300: raise SystemExit(f"{method} {path}: {r.status} {data[:300]!r}")
    return json.loads(data) if data else None

def status_kib(field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"): return int(line.split()[1])
def reset_peak():
    with open(f"/proc/{pid}/clear_refs", "w") as f: f.write("5")  # VmHWM := VmRSS

def session(outcome="approved"):
    s = call("POST", "/v1/verification-sessions", {"channel": "api", "policy": {"testOutcome": outcome}},
             {"Idempotency-Key": os.urandom(8).hex()})["id"]
    call("POST", f"/v1/verification-sessions/{s}/consent", {"accepted": True})
    return s
def upload(s, kind, mime, data):
    b = "bench" + os.urandom(8).hex()
    body = (f"--{b}\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\n{kind}\r\n"
            f"--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c\"\r\nContent-Type: {mime}\r\n\r\n").encode() + data + f"\r\n--{b}--\r\n".encode()
    return call("POST", f"/v1/verification-sessions/{s}/media", body, {"Content-Type": f"multipart/form-data; boundary={b}"})

video = MP4 + os.urandom(mib << 20)
up_growth, up_rate, view_ttfb, view_total, view_growth, whole = [], [], [], [], [], []
for _ in range(runs):
    s = session()
    idle = status_kib("VmRSS"); reset_peak()
    t0 = time.monotonic(); m = upload(s, "liveness_video", "video/mp4", video); t1 = time.monotonic()
    up_growth.append((status_kib("VmHWM") - idle) / 1024); up_rate.append(len(video) / (1 << 20) / (t1 - t0))
    link = call("POST", "/v1/media-links", {"sessionId": s, "mediaId": m["mediaId"], "purpose": "identity_verification",
                                            "reason": "benchmark"})["url"]
    path = link[link.index("/v1/media-links/"):]
    idle = status_kib("VmRSS"); reset_peak()
    c = http.client.HTTPConnection(host.hostname, host.port, timeout=300)
    t0 = time.monotonic(); c.request("GET", path); r = c.getresponse(); first = r.read1(65536); t1 = time.monotonic()
    rest = r.read(); t2 = time.monotonic(); c.close()
    assert r.status == 200 and first + rest == video, (r.status, len(first) + len(rest))
    view_growth.append((status_kib("VmHWM") - idle) / 1024); view_ttfb.append((t1 - t0) * 1000); view_total.append((t2 - t0) * 1000)
for _ in range(runs * 3):
    t0 = time.monotonic(); s = session()
    for kind, mime, data in [("document_front", "image/jpeg", JPEG(1280, 800)), ("document_back", "image/jpeg", JPEG(1280, 801)),
                             ("selfie", "image/jpeg", JPEG(720, 960)), ("liveness_video", "video/mp4", MP4)]:
        upload(s, kind, mime, data)
    call("POST", f"/v1/verification-sessions/{s}/submit")
    while call("GET", f"/v1/verification-sessions/{s}")["status"] not in ("approved", "declined", "review"): time.sleep(0.005)
    whole.append((time.monotonic() - t0) * 1000)
med = statistics.median
print(f"blobs: {backend:5} upload {mib} MiB video: {med(up_rate):7.1f} MiB/s, server peak RSS +{med(up_growth):5.1f} MiB above before")
print(f"blobs: {backend:5} view {mib} MiB video (media link): first byte {med(view_ttfb):6.1f} ms, all {med(view_total):7.1f} ms, peak RSS +{med(view_growth):5.1f} MiB")
print(f"blobs: {backend:5} whole verification (4 captures, create to verdict): {med(whole):6.1f} ms (median of {len(whole)})")
PY
  stop_pid "$SVC_PID"
done
