#!/usr/bin/env bash
# Verification work spread over workers (issue 34). On `svc dev-broker`: node a (api, writer,
# projector, pipeline, webhooks, timers) answers the API, writes every partition and publishes each
# submission as a job; WORKERS processes with `--roles projector,worker` (the dlib engine) run the
# jobs, each pinned to one core with taskset (worker i on core i-1). Captures sit in the tests'
# S3 server. WORKER_SESSIONS full verifications of the sample captures (docs/samples: document front
# and back, selfie, liveness video) are created and uploaded first, then submitted at once; the
# time from the first submit to the last verdict gives verifications/s. Run with one worker, then
# with a second beside it; the CPU per verification of the workers and of node a comes from /proc.
# The sessions belong to four tenants, one per log partition (each partition has one writer).
# WORKER_FLAGS: more `svc serve` flags for the workers (experiments).
#   scripts/bench.d/workers.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
SESSIONS=${WORKER_SESSIONS:-24}
ENGINE=${WORKER_ENGINE:-dlib}  # BENCH_SMOKE: model-free (no models to import; the numbers mean nothing)
[ -d tests/s3/node_modules/s3rver ] || (cd tests/s3 && npm ci --no-audit --no-fund --loglevel=error)

node tests/s3/server.mjs "$WORK/s3" svc-workers > "$WORK/s3.out" 2> "$WORK/s3.err" &
S3_PID=$!
watch_pid $S3_PID
for _ in $(seq 300); do grep -q '^port ' "$WORK/s3.out" && break; sleep 0.1; done
S3_PORT=$(sed -n 's/^port //p' "$WORK/s3.out")
[ -n "$S3_PORT" ] || { cat "$WORK/s3.err" >&2; exit 1; }
printf '[default]\naws_access_key_id = S3RVER\naws_secret_access_key = S3RVER\n' > "$WORK/aws-credentials"
chmod 600 "$WORK/aws-credentials"
broker_start
FACE=(--face-engine model-free)
if [ "$ENGINE" = dlib ]; then
  "$SVC" models import --data-dir "$WORK/models" --face-api models/node_modules/@vladmandic/face-api > /dev/null
  FACE=(--face-engine dlib --face-model "$WORK/models/models/face_recognition_resnet_v1.dat" ${WORKER_FLAGS:-})
fi

declare -A PID PORT
node_start() {  # name cpu-list|- flags...: a node with the shared bucket
  local n=$1 cpus=$2
  shift 2
  group_node_start "$n" "$cpus" --rate-reads 0 --rate-writes 0 \
    --blob-store s3 --s3-endpoint "http://127.0.0.1:$S3_PORT" --s3-bucket svc-workers --s3-prefix media \
    --s3-path-style --s3-credentials-file "$WORK/aws-credentials" "$@"
}
job_partitions() {  # name: how many partitions of the jobs topic the node runs
  curl -sf "http://127.0.0.1:${PORT[$1]}/node" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("jobPartitions", {}).get("owned", [])))' 2>/dev/null || echo 0
}

node_start a - --roles api,writer,projector,pipeline,webhooks,timers --face-engine model-free
# One tenant per log partition (its one writer decides its commands in order): the sessions are
# spread over the four, so that no single partition's writer bounds the run.
partition_of() { python3 -c '
import sys
h = 1469598103934665603
for c in sys.argv[1].encode(): h = ((h ^ c) * 1099511628211) % (1 << 64)
print(h % 4)' "$1"; }
declare -A KEY_OF=()
for _ in $(seq 64); do
  [ "${#KEY_OF[@]}" = 4 ] && break
  [ "$(admin a POST /admin/tenants '{"name":"Workers bench"}')" = 201 ] || { cat "$WORK/admin.body"; exit 1; }
  tenant=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$WORK/admin.body")
  p=$(partition_of "$tenant")
  [ -z "${KEY_OF[$p]:-}" ] || continue
  [ "$(admin a POST "/admin/tenants/$tenant/keys" '{"environment":"test","scopes":["*"]}')" = 201 ] || { cat "$WORK/admin.body"; exit 1; }
  KEY_OF[$p]=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["secret"])' "$WORK/admin.body")
done
KEYS=$(IFS=,; echo "${KEY_OF[*]}")

declare -A RATE
names=()
for workers in 1 2; do
  # One worker, then a second beside it (the group splits the jobs topic between them).
  n="w$workers"
  node_start "$n" "$((workers - 1))" --roles projector,worker "${FACE[@]}"
  names+=("$n")
  # Every partition of the jobs topic has a worker, and each worker has some.
  until total=0 each=1; for n in "${names[@]}"; do
      j=$(job_partitions "$n"); total=$((total + j)); [ "$j" -gt 0 ] || each=0
    done; [ "$total" = 16 ] && [ "$each" = 1 ]; do
    sleep 0.05
  done
  pids=()
  for n in "${names[@]}"; do pids+=("${PID[$n]}"); done
  python3 - "http://127.0.0.1:${PORT[a]}" "$KEYS" "$SESSIONS" "$WORK/run.out" "${PID[a]}" "$BROKER_PID,$S3_PID" "${pids[@]}" <<'PY'
import http.client, json, os, sys, time, urllib.parse
base, keys, n, out, api_pid, others, pids = (sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), sys.argv[4],
                                             sys.argv[5], sys.argv[6].split(","), sys.argv[7:])
host = urllib.parse.urlparse(base)
samples = "docs/samples/"
captures = [("document_front", "image/jpeg", open(samples + "front.jpg", "rb").read()),
            ("document_back", "image/jpeg", open(samples + "back.jpg", "rb").read()),
            ("selfie", "image/jpeg", open(samples + "selfie.jpg", "rb").read()),
            ("liveness_video", "video/mp4", open(samples + "video.mp4", "rb").read())]
key_of = {}  # session -> its tenant's key
def call(method, path, body=None, headers=None, key=None):
    c = http.client.HTTPConnection(host.hostname, host.port, timeout=300)
    h = {"Authorization": "Bearer " + key}
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode(); h["Content-Type"] = "application/json"
    h.update(headers or {})
    c.request(method, path, body=body, headers=h)
    r = c.getresponse(); data = r.read(); c.close()
    if r.status >= 300: raise SystemExit(f"{method} {path}: {r.status} {data[:300]!r}")
    return json.loads(data) if data else None
def ticks(of):  # user + system time in clock ticks (fields 14 and 15 of /proc/PID/stat)
    total = 0
    for p in of:
        fields = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total
sessions = []
for i in range(n):
    k = keys[i % len(keys)]
    s = call("POST", "/v1/verification-sessions", {"channel": "api"}, {"Idempotency-Key": os.urandom(8).hex()}, k)["id"]
    key_of[s] = k
    call("POST", f"/v1/verification-sessions/{s}/consent", {"accepted": True}, key=k)
    for kind, mime, data in captures:
        b = "bench" + os.urandom(8).hex()
        body = (f"--{b}\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\n{kind}\r\n"
                f"--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c\"\r\nContent-Type: {mime}\r\n\r\n").encode() + data + f"\r\n--{b}--\r\n".encode()
        call("POST", f"/v1/verification-sessions/{s}/media", body, {"Content-Type": f"multipart/form-data; boundary={b}"}, k)
    sessions.append(s)
workers0, api0, others0 = ticks(pids), ticks([api_pid]), ticks(others); t0 = time.monotonic()
self0 = os.times()
for s in sessions: call("POST", f"/v1/verification-sessions/{s}/submit", key=key_of[s])
left = set(sessions); outcomes = {}
while left:
    for s in list(left):
        st = call("GET", f"/v1/verification-sessions/{s}", key=key_of[s])["status"]
        if st in ("approved", "declined", "review"):
            outcomes[st] = outcomes.get(st, 0) + 1; left.discard(s)
    time.sleep(0.05)
elapsed = time.monotonic() - t0; hz = os.sysconf("SC_CLK_TCK")
workers_cpu, api_cpu = (ticks(pids) - workers0) / hz, (ticks([api_pid]) - api0) / hz
self1 = os.times()
# The machine's other busy processes: the broker, the S3 server, this client.
rest_cpu = (ticks(others) - others0) / hz + (self1.user - self0.user) + (self1.system - self0.system)
with open(out, "w") as f:
    f.write(f"{n / elapsed:.3f} {elapsed:.2f} {workers_cpu / n:.3f} {api_cpu / n:.3f} {rest_cpu / n:.3f} "
            f"{(workers_cpu + api_cpu + rest_cpu) / elapsed:.2f} {json.dumps(outcomes, sort_keys=True)}\n")
PY
  read -r rate elapsed cpu api_cpu rest_cpu busy outcomes < "$WORK/run.out"
  RATE[$workers]=$rate
  printf 'workers: %d worker(s), one core each: %3d verifications in %6.2f s = %6.2f/s; CPU per verification: workers %5.3f s, node a (api, writer, publisher; polled) %5.3f s, broker + S3 + client %5.3f s; cores busy %s of %s; outcomes %s\n' \
    "$workers" "$SESSIONS" "$elapsed" "$rate" "$cpu" "$api_cpu" "$rest_cpu" "$busy" "$(nproc)" "$outcomes"
done
python3 -c 'import sys; print(f"workers: two workers against one: {float(sys.argv[2]) / float(sys.argv[1]):.2f}x (goal >= 1.8x)")' "${RATE[1]}" "${RATE[2]}"
