#!/usr/bin/env bash
# Hostile uploads (issue 68, items 2 and 5), through the API of a Release svc with its defaults:
#  1. memory: HOSTILE_UPLOADS (32) concurrent uploads of HOSTILE_MIB (30) MiB from as many source
#     addresses (127.0.0.2, …) with the per-source and per-tenant shares off (the worst case: an
#     attacker with many addresses and keys): the file sent before its kind (held in memory), then
#     the kind first with analyze=true (kept for the engine). The server's peak RSS above idle and
#     the answers (201 / 503 ADMISSION_FULL);
#  2. stall: STALLERS (40) uploads from one source address that send their header and stall, then
#     another tenant's capture from another address: its time to answer (target: within 2 s), and
#     the stalled connections' fate.
#   scripts/bench.d/uploads.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
N=${HOSTILE_UPLOADS:-32}
MIB=${HOSTILE_MIB:-30}
STALLERS=${STALLERS:-40}

run_part() {  # part, extra serve flags...
  local part=$1; shift
  rm -rf "$WORK/data"
  start_svc --dev-bootstrap "$@"
  [ -n "${KEY:-}" ] || { echo "uploads: no development key in the server's output" >&2; exit 1; }
  local other=""
  if [ "$part" = stall ]; then
    local tenant
    tenant=$("$SVC" admin tenant create --name Other --data-dir "$WORK/data" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    other=$("$SVC" admin key create --tenant "$tenant" --env test --scopes '*' --data-dir "$WORK/data" |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])')
  fi
  python3 - "$part" "$PORT" "$KEY" "$SVC_PID" "$N" "$MIB" "$STALLERS" "$other" <<'PY'
import http.client, json, os, socket, sys, threading, time
part, port, key, pid, n, mib, stallers, other = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), sys.argv[8]
MP4 = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2" + b"\x00\x00\x00\x10mdat" + b"\x00" * 8
JPEG = (b"\xFF\xD8\xFF\xE0" + b"\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\xFF\xC0\x00\x11\x08" +
        bytes([480 >> 8, 480 & 255, 640 >> 8, 640 & 255]) + b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01\xFF\xD9")

def call(method, path, body=None, k=None, source="127.0.0.1", boundary=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=300, source_address=(source, 0))
    h = {"Authorization": "Bearer " + (k or key)}
    if boundary: h["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    if isinstance(body, dict):
        body = json.dumps(body).encode(); h["Content-Type"] = "application/json"
    c.request(method, path, body=body, headers={**h, "Idempotency-Key": os.urandom(8).hex()})
    r = c.getresponse(); data = r.read(); c.close()
    return r.status, data

def session(k=None):
    st, b = call("POST", "/v1/verification-sessions", {"channel": "api"}, k)
    assert st == 201, b
    s = json.loads(b)["id"]
    st, b = call("POST", f"/v1/verification-sessions/{s}/consent", {"accepted": True}, k)
    assert st == 200, b
    return s

def form(parts):
    b = "bench" + os.urandom(8).hex()
    out = b""
    for name, filename, ctype, data in parts:
        out += f"--{b}\r\nContent-Disposition: form-data; name=\"{name}\"".encode()
        if filename: out += f"; filename=\"{filename}\"".encode()
        out += b"\r\n" + (f"Content-Type: {ctype}\r\n".encode() if ctype else b"") + b"\r\n" + data + b"\r\n"
    return b, out + f"--{b}--\r\n".encode()

def status_kib(field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"): return int(line.split()[1])

if part == "memory":
    s = session()
    video = MP4 + os.urandom((mib << 20) - len(MP4))  # the kind's limit, exactly
    for label, query, parts in [
            ("file before kind", "", [("file", "v.mp4", "video/mp4", video), ("kind", "", "", b"liveness_video")]),
            ("kind first, analyze=true", "?analyze=true", [("kind", "", "", b"liveness_video"), ("file", "v.mp4", "video/mp4", video)])]:
        boundary, body = form(parts)
        idle = status_kib("VmRSS")
        with open(f"/proc/{pid}/clear_refs", "w") as f: f.write("5")  # VmHWM := VmRSS
        answers, lock, go = {}, threading.Lock(), threading.Barrier(n)
        def one(i):
            go.wait()
            st, _ = call("POST", f"/v1/verification-sessions/{s}/media{query}", body, source=f"127.0.0.{2 + i}", boundary=boundary)
            with lock: answers[st] = answers.get(st, 0) + 1
        t0 = time.monotonic()
        ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in ts: t.start()
        for t in ts: t.join()
        grew = (status_kib("VmHWM") - idle) / 1024
        print(f"uploads: {n} concurrent {mib} MiB uploads, {label}: peak RSS +{grew:.0f} MiB above idle "
              f"({idle / 1024:.0f} MiB); answers {dict(sorted(answers.items()))}; {time.monotonic() - t0:.1f} s")
else:
    s = session()
    mine = session(other)
    head = (f"POST /v1/verification-sessions/{s}/media HTTP/1.1\r\nHost: svc\r\nAuthorization: Bearer {key}\r\n"
            f"Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 5000000\r\n\r\n").encode()
    socks = []
    for _ in range(stallers):
        c = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0)); c.sendall(head); socks.append(c)
    time.sleep(0.5)  # the attack in place
    boundary, body = form([("kind", "", "", b"selfie"), ("file", "s.jpg", "image/jpeg", JPEG)])
    t0 = time.monotonic()
    st, b = call("POST", f"/v1/verification-sessions/{mine}/media", body, other, source="127.0.0.3", boundary=boundary)
    took = time.monotonic() - t0
    assert st == 201, (st, b[:300])
    # What the stalled connections got: refused at once (their source's share spent), or cut at the
    # stall deadline.
    refused = cut = 0
    t1 = time.monotonic()
    for c in socks:
        c.settimeout(60)
        try:
            data = c.recv(64)
            refused += data.startswith(b"HTTP/1.1 429")
            cut += data == b""
        except (ConnectionResetError, socket.timeout):
            cut += 1
    print(f"uploads: {stallers} stalled uploads from one address; another tenant's capture answered 201 in "
          f"{took * 1000:.0f} ms; of the stalled, {refused} refused 429 at once, {cut} closed at the stall deadline "
          f"(all within {time.monotonic() - t1:.1f} s)")
PY
  stop_pid "$SVC_PID"
}

run_part memory --max-uploads-per-source 0 --max-uploads-per-tenant 0
run_part stall
