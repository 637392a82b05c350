#!/usr/bin/env python3
"""A soak (issue 38 item 3): a mixed workload at half of the measured capacity for MINUTES, with a
kill -9 every KILL_EVERY minutes, on the embedded log or on the dev broker's Kafka.

  soak.py SVC_BIN MINUTES BACKEND WORK_DIR SAMPLES_DIR [KILL_EVERY]

The mix, on a fixed schedule (open loop: each operation timed from when it was due): GET a
session 30 %, a list page 15 %, session creates 15 %, person creates 15 %, decrypts 10 %, the
five-call verification with the sample captures 10 % (sandbox outcomes: approved, or review and
then a claim and a resolve through the review API), deliveries of every session's webhooks to a
local receiver. Capacity is first measured closed-loop with the same mix: the rate of the last
60 s of SOAK_CAPACITY_SECONDS (default 300), what the machine sustains once flushes and
compactions run; SOAK_RATE_SHARE (default 0.5) is the share of it to soak at; or SOAK_RATE=N
gives the rate.

SOAK_KEY=sk_... runs on a data directory that already exists under WORK_DIR (from an earlier soak,
with a key made by `svc admin key create`): the capacity is then measured on a store that already
holds that much data, and the store's webhook endpoints are pointed at this run's receiver.

Every minute: the server's resident memory, open descriptors, RocksDB live SST bytes and compaction
debt (/metrics), the data directory's size, the minute's operations, errors and p99. After each
kill the server is restarted and the first answer awaited; requests refused meanwhile are counted
apart (not errors). At the end every acknowledged write (sessions, persons) is read back. Prints a
table and writes WORK_DIR/soak.json."""
import http.client
import http.server
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time

SVC, MINUTES, BACKEND, WORK, SAMPLES = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
KILL_EVERY = float(sys.argv[6]) if len(sys.argv) > 6 else 10.0
DATA = os.path.join(WORK, "data")
REUSE_KEY = os.environ.get("SOAK_KEY")
os.makedirs(WORK, exist_ok=True)
lock = threading.Lock()
state = {"port": None, "key": None, "down": False}
acked = {"sessions": [], "persons": []}
minute_stats = []
current = {"ops": 0, "errors": 0, "refused": 0, "lat": [], "kinds": {}, "lat_kind": {}}
error_samples = []
received = {"count": 0}


# ---- the webhook receiver ----
class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(n)
        with lock:
            received["count"] += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *a):
        pass


receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()

# ---- the server ----
broker = None
broker_list = None
if BACKEND == "kafka":
    broker = subprocess.Popen([SVC, "dev-broker"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in broker.stdout:
        if line.startswith("bootstrap.servers="):
            broker_list = line.strip().split("=", 1)[1]
            break
server = None


def start_server(first):
    global server
    port_file = os.path.join(WORK, "port")
    if os.path.exists(port_file):
        os.remove(port_file)
    args = [SVC, "serve", "--data-dir", DATA, "--listen", "127.0.0.1:0", "--port-file", port_file,
            "--dev-keys-in-data-dir", "--face-engine", "model-free", "--rate-reads", "0", "--rate-writes", "0",
            "--rate-reveals", "0", "--reveal-budget-per-day", "1000000000", "--webhooks-allow-private-urls",
            "--log-level", "warn"] + os.environ.get("SOAK_SVC_ARGS", "").split()
    if first and not REUSE_KEY:
        args.append("--dev-bootstrap")
    if broker_list:
        args += ["--log-backend", "kafka", "--kafka-brokers", broker_list]
    out = open(os.path.join(WORK, "svc.out"), "a")
    server = subprocess.Popen(args, stdout=subprocess.PIPE if first else out, stderr=open(os.path.join(WORK, "svc.err"), "a"),
                              text=True)
    if first and REUSE_KEY:
        state["key"] = REUSE_KEY
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    elif first:
        for line in server.stdout:
            if "Test secret key" in line:
                state["key"] = line.strip().split(": ")[-1]
                break
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    deadline = time.time() + 300
    while time.time() < deadline:
        if os.path.exists(port_file) and open(port_file).read().strip():
            port = int(open(port_file).read().strip().rsplit(":", 1)[-1])
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                c.request("GET", "/readyz")
                if c.getresponse().status == 200:
                    state["port"] = port
                    return time.time()
            except OSError:
                pass
        time.sleep(0.05)
    raise SystemExit("soak: the server was not ready in 300 s")


# ---- calls ----
tls = threading.local()


# The server closes a kept-alive connection idle for its read timeout (30 s by default); a worker
# that sat idle longer than KEEPALIVE_S opens a fresh one instead of sending into a closed socket.
KEEPALIVE_S = 20.0


def call(method, path, body=None, headers=None, raw=None, content_type=None):
    h = {"Authorization": "Bearer " + state["key"]}
    if headers:
        h.update(headers)
    data = raw
    if body is not None:
        data = json.dumps(body)
        h["Content-Type"] = "application/json"
    if content_type:
        h["Content-Type"] = content_type
    # Sent again once, on a fresh connection, only when a reused connection failed and the request
    # is safe to repeat: a GET, or a write carrying an Idempotency-Key (the server answers a repeat
    # with the first answer). Any other write that fails counts as an error.
    safe = method == "GET" or "Idempotency-Key" in h
    for attempt in (0, 1):
        conn = getattr(tls, "conn", None)
        now = time.monotonic()
        if (conn is None or getattr(tls, "port", None) != state["port"]
                or now - getattr(tls, "used", 0.0) > KEEPALIVE_S):
            if conn is not None:
                conn.close()
            conn = tls.conn = http.client.HTTPConnection("127.0.0.1", state["port"], timeout=30)
            tls.port, tls.reused = state["port"], False
        try:
            conn.request(method, path, body=data, headers=h)
            r = conn.getresponse()
            payload = r.read()
        except (OSError, http.client.HTTPException):
            reused = getattr(tls, "reused", False)
            conn.close()
            tls.conn = None
            if attempt == 0 and reused and safe and not state["down"]:
                continue
            raise
        tls.used, tls.reused = time.monotonic(), True
        return r.status, payload


def multipart(fields, file_field, filename, mime, content):
    b = "soak%016x" % random.getrandbits(64)
    parts = []
    for k, v in fields.items():
        parts.append(f"--{b}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n".encode())
    parts.append(f"--{b}\r\nContent-Disposition: form-data; name=\"{file_field}\"; filename=\"{filename}\"\r\n"
                 f"Content-Type: {mime}\r\n\r\n".encode() + content + b"\r\n")
    parts.append(f"--{b}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={b}"


captures = [("document_front", "front.jpg", "image/jpeg"), ("document_back", "back.jpg", "image/jpeg"),
            ("selfie", "selfie.jpg", "image/jpeg"), ("liveness_video", "video.mp4", "video/mp4")]
capture_bytes = {name: open(os.path.join(SAMPLES, name), "rb").read() for _, name, _ in captures}
counter = {"n": 0}


def next_n():
    with lock:
        counter["n"] += 1
        return counter["n"]


def expect(status, payload, ok=(200, 201, 202, 204)):
    if status not in ok:
        raise RuntimeError(f"{status} {payload[:200]!r}")
    return json.loads(payload) if payload else {}


def op_get():
    with lock:
        ids = acked["sessions"][-200:]
    if not ids:
        return op_session()
    expect(*call("GET", "/v1/verification-sessions/" + random.choice(ids)))


def op_list():
    expect(*call("GET", "/v1/verification-sessions?limit=20"))


def op_session():
    n = next_n()
    j = expect(*call("POST", "/v1/verification-sessions", {"channel": "api", "clientReference": f"soak-{n}"},
                     {"Idempotency-Key": f"soak-s-{n}-{os.getpid()}"}))
    with lock:
        acked["sessions"].append(j["id"])


def op_person():
    n = next_n()
    j = expect(*call("POST", "/v1/persons", {"pii": {"fullName": f"Soak Person {n}", "email": f"soak.{n}@example.mx"}},
                     {"Idempotency-Key": f"soak-p-{n}-{os.getpid()}"}))
    with lock:
        acked["persons"].append(j["id"])


def op_decrypt():
    with lock:
        ids = acked["persons"][-200:]
    if not ids:
        return op_person()
    expect(*call("POST", f"/v1/persons/{random.choice(ids)}/decrypt",
                 {"fields": ["fullName", "email"], "purpose": "identity_verification", "reason": "soak"}))


def op_verification():
    n = next_n()
    outcome = "review" if n % 3 == 0 else "approved"
    j = expect(*call("POST", "/v1/verification-sessions", {"channel": "api", "policy": {"testOutcome": outcome}},
                     {"Idempotency-Key": f"soak-v-{n}-{os.getpid()}"}))
    sid = j["id"]
    with lock:
        acked["sessions"].append(sid)
    expect(*call("POST", f"/v1/verification-sessions/{sid}/consent", {"accepted": True}))
    for kind, name, mime in captures:
        body, ctype = multipart({"kind": kind}, "file", name, mime, capture_bytes[name])
        expect(*call("POST", f"/v1/verification-sessions/{sid}/media", raw=body, content_type=ctype))
    expect(*call("POST", f"/v1/verification-sessions/{sid}/submit"))
    if outcome == "review":
        # A claim and a resolve of an open case (this one's, or an earlier one's if it is not open yet).
        q = expect(*call("GET", "/v1/review/queue?status=open&limit=5"))
        for item in q.get("data", []):
            cid = item.get("caseId")
            st, _ = call("POST", f"/v1/review/cases/{cid}/claim")
            if st == 200:
                expect(*call("POST", f"/v1/review/cases/{cid}/resolve",
                             {"action": "approve", "note": "soak", "reasonCodes": ["REVIEW_APPROVED"]}), ok=(200, 409))
                break


# SOAK_VERIFY_WEIGHT: the verifications' share (default 10 of 95): each stores about 260 KB of
# sample captures, about 400 MB a minute at a Release build's half capacity here.
MIX = [(op_get, 30), (op_list, 15), (op_session, 15), (op_person, 15), (op_decrypt, 10),
       (op_verification, int(os.environ.get("SOAK_VERIFY_WEIGHT", "10")))]
OPS = [f for f, w in MIX for _ in range(w)]


def run_op(fn, due):
    t0 = time.time()
    try:
        fn()
        ok, refused = True, False
    except (OSError, http.client.HTTPException) as e:
        ok, refused = False, state["down"]
        err = repr(e)
    except Exception as e:  # noqa: BLE001 — an answer we did not expect
        ok, refused = False, state["down"]
        err = str(e)
    lat = (time.time() - due) * 1000
    with lock:
        current["ops"] += 1
        current["kinds"][fn.__name__] = current["kinds"].get(fn.__name__, 0) + 1
        if ok:
            current["lat"].append(lat)
            current["lat_kind"].setdefault(fn.__name__, []).append(lat)
        elif refused:
            current["refused"] += 1
        else:
            current["errors"] += 1
            if len(error_samples) < 50:
                error_samples.append(f"{time.strftime('%H:%M:%S')} {fn.__name__}: {err}")
    return ok


# ---- capacity: the mix closed-loop, 8 callers ----
# What the machine *sustains*: a burst on an empty store runs before memtable flushes and
# compactions take their share (20 s measured ~2,000 ops/s here, and p99 rose from the 11th minute
# at half of that), so the mix runs closed-loop for SOAK_CAPACITY_SECONDS (default 300) and the
# capacity is the rate of its last 60 s. SOAK_RATE=N skips the measurement and soaks at N ops/s.
start_server(True)
existing = []
if REUSE_KEY:  # the store's endpoints point at an earlier run's receiver: point them at this one
    status, page = call("GET", "/v1/developer/webhooks?limit=100")
    assert status == 200, status
    existing = json.loads(page)["data"]
    for ep in existing:
        status, _ = call("PATCH", f"/v1/developer/webhooks/{ep['id']}",
                         {"url": f"http://127.0.0.1:{receiver.server_address[1]}/soak"})
        assert status == 200, status
if not existing:
    status, _ = call("POST", "/v1/developer/webhooks",
                     {"url": f"http://127.0.0.1:{receiver.server_address[1]}/soak", "events": ["verification.*"]},
                     {"Idempotency-Key": "soak-hook"})
    assert status == 201, status
for _ in range(20):
    op_session()
    op_person()
CAP_SECONDS = float(os.environ.get("SOAK_CAPACITY_SECONDS", "300"))
RATE_SHARE = float(os.environ.get("SOAK_RATE_SHARE", "0.5"))
capacity_curve = []
if os.environ.get("SOAK_RATE"):
    rate = float(os.environ["SOAK_RATE"])
    capacity = None
else:
    cap_begin = time.time()
    stop_cap = cap_begin + CAP_SECONDS
    done_at = []  # completion times of the closed-loop operations

    def closed_loop():
        while time.time() < stop_cap:
            if run_op(random.choice(OPS), time.time()):
                t = time.time()
                with lock:
                    done_at.append(t)

    threads = [threading.Thread(target=closed_loop) for _ in range(8)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        time.sleep(1)
        if len(capacity_curve) < int((time.time() - cap_begin) // 30):
            with lock:
                lo = cap_begin + 30 * len(capacity_curve)
                k = sum(1 for x in done_at if lo <= x < lo + 30)
            capacity_curve.append(round(k / 30))
            print(f"soak: closed-loop {30 * len(capacity_curve):>4} s: {capacity_curve[-1]} ops/s", flush=True)
    for t in threads:
        t.join()
    window = min(60.0, CAP_SECONDS)
    capacity = sum(1 for x in done_at if x >= stop_cap - window) / window
    rate = max(1.0, capacity * RATE_SHARE)
with lock:
    current.update({"ops": 0, "errors": 0, "refused": 0, "lat": [], "kinds": {}, "lat_kind": {}})
if capacity is None:
    print(f"soak: {BACKEND}, soaking at SOAK_RATE={rate:.0f} ops/s for {MINUTES:g} min, kill -9 every {KILL_EVERY:g} min",
          flush=True)
else:
    print(f"soak: {BACKEND}, sustained capacity of this driver's mix {capacity:.0f} ops/s closed-loop (the last "
          f"{window:.0f} s of {CAP_SECONDS:.0f} s); soaking at {rate:.0f} ops/s ({RATE_SHARE:g} of it) for {MINUTES:g} min, kill -9 every "
          f"{KILL_EVERY:g} min", flush=True)

# ---- the soak ----
work = queue.Queue()
stop = threading.Event()


def worker():
    while not stop.is_set():
        try:
            fn, due = work.get(timeout=0.5)
        except queue.Empty:
            continue
        run_op(fn, due)


workers = [threading.Thread(target=worker, daemon=True) for _ in range(32)]
for w in workers:
    w.start()


def metrics():
    body = b""
    for _ in range(2):  # a kept connection the server closed while idle: once more on a new one
        try:
            st, body = call("GET", "/metrics")
            break
        except (OSError, http.client.HTTPException):
            tls.conn = None
    if not body:
        return {}
    out = {}
    for line in body.decode().splitlines():
        for name in ("svc_process_resident_bytes", "svc_process_open_fds", "svc_rocksdb_live_sst_bytes",
                     "svc_rocksdb_pending_compaction_bytes", "svc_rocksdb_table_readers_bytes",
                     "svc_rocksdb_block_cache_bytes"):
            if line.startswith(name + " "):
                out[name] = float(line.split()[1])
    return out


def stat_cpu(st):
    """(name, CPU seconds) from the text of a /proc .../stat file: utime + stime."""
    fields = st[st.rindex(")") + 2:].split()
    return st[st.index("(") + 1:st.rindex(")")], (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_cpu():
    """CPU seconds of the server's threads so far, by thread name (compactions are rocksdb:low)."""
    out = {}
    try:
        pid = server.pid
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    st = f.read()
            except OSError:
                continue
            name, cpu = stat_cpu(st)
            out[name] = out.get(name, 0.0) + cpu
    except OSError:
        pass
    return out


cpu_mark = {"pid": None, "at": time.time(), "cpu": {}}


def broker_cpu():
    with open(f"/proc/{broker.pid}/stat") as f:
        return stat_cpu(f.read())[1]


def du(path):
    """Bytes under `path`, by du(1) in its own process (a walk here of the 120,000 capture files an
    hour at 400 ops/s leaves took 1.3 s of the interpreter; du takes 0.4 s of its own)."""
    try:
        out = subprocess.run(["du", "-sb", path], capture_output=True, text=True, timeout=120).stdout
        return int(out.split()[0])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return 0


begin = time.time()
cpu_mark.update({"pid": server.pid, "at": begin, "cpu": thread_cpu()})
if broker:
    cpu_mark["broker"] = (broker_cpu(), begin)
next_kill = begin + KILL_EVERY * 60
next_minute = begin + 60
kills = []
i = 0
rows = threading.Thread(target=lambda: None)
rows.start()
print(f"{'min':>4} {'ops':>7} {'err':>5} {'refused':>7} {'p99 ms':>8} {'RSS MiB':>8} {'fds':>5} {'SST MiB':>8} "
      f"{'debt MiB':>8} {'disk MiB':>8} {'hooks':>7} {'readers MiB':>11} {'cache MiB':>9} {'cores':>5} {'compact':>7}  "
      f"p99 ms: GET list session person decrypt verification", flush=True)
def minute_row():
    """The minute's row. Runs beside the dispatcher, not in it: the minute's operations are taken
    under the lock at once, and the measurements (/metrics, /proc, du) are made outside it, so no
    operation waits on them (a du of the data directory in the dispatcher, under the lock, stalled
    every worker and the schedule for a second a minute after an hour: the p99 of the whole mix
    grew with the capture files while the server answered a /readyz probe in under 50 ms)."""
    with lock:
        snap = {k: current[k] for k in ("ops", "errors", "refused", "lat", "lat_kind")}
        current.update({"ops": 0, "errors": 0, "refused": 0, "lat": [], "kinds": {}, "lat_kind": {}})
        hooks = received["count"]
    m = metrics()
    cpu_now, t_now = thread_cpu(), time.time()
    if cpu_mark["pid"] != server.pid:  # restarted this minute: the new process's CPU from its start
        cpu_mark.update({"pid": server.pid, "cpu": {}})
    span = max(1e-3, t_now - cpu_mark["at"])
    used = {k: v - cpu_mark["cpu"].get(k, 0.0) for k, v in cpu_now.items()}
    cpu_mark.update({"at": t_now, "cpu": cpu_now})
    disk = du(DATA)
    broker_row = {}
    if broker:  # the dev broker is a process of its own: its CPU and memory apart from the server's
        try:
            b_cpu = broker_cpu()
            with open(f"/proc/{broker.pid}/status") as f:
                b_rss = next(int(x.split()[1]) for x in f if x.startswith("VmRSS:")) * 1024
            b_prev, b_at = cpu_mark["broker"]
            cpu_mark["broker"] = (b_cpu, t_now)
            broker_row = {"broker_cores": round((b_cpu - b_prev) / max(1e-3, t_now - b_at), 2),
                          "broker_rss_mib": round(b_rss / 2**20, 1)}
        except (OSError, ValueError, StopIteration):
            pass
    lat = sorted(snap["lat"])
    row = {"minute": len(minute_stats) + 1, "ops": snap["ops"], "errors": snap["errors"],
           "refused": snap["refused"],
           "p99_ms": round(lat[min(len(lat) - 1, int(0.99 * len(lat)))], 1) if lat else None,
           "rss_mib": round(m.get("svc_process_resident_bytes", 0) / 2**20, 1),
           "fds": int(m.get("svc_process_open_fds", 0)),
           "sst_mib": round(m.get("svc_rocksdb_live_sst_bytes", 0) / 2**20, 1),
           "debt_mib": round(m.get("svc_rocksdb_pending_compaction_bytes", 0) / 2**20, 1),
           "disk_mib": round(disk / 2**20, 1), "hooks": hooks,
           "readers_mib": round(m.get("svc_rocksdb_table_readers_bytes", 0) / 2**20, 1),
           "cache_mib": round(m.get("svc_rocksdb_block_cache_bytes", 0) / 2**20, 1),
           # cores the server used this minute, and those of them RocksDB's compactions used
           "server_cores": round(sum(used.values()) / span, 2),
           "compaction_cores": round(used.get("rocksdb:low", 0.0) / span, 2),
           # each operation's own p99 (in the JSON only): which one a rising p99 comes from
           "p99_ms_by_op": {k: round(sorted(v)[min(len(v) - 1, int(0.99 * len(v)))], 1)
                            for k, v in snap["lat_kind"].items() if v}}
    row.update(broker_row)
    minute_stats.append(row)
    print(f"{row['minute']:>4} {row['ops']:>7} {row['errors']:>5} {row['refused']:>7} {str(row['p99_ms']):>8} "
          f"{row['rss_mib']:>8} {row['fds']:>5} {row['sst_mib']:>8} {row['debt_mib']:>8} {row['disk_mib']:>8} "
          f"{row['hooks']:>7} {row['readers_mib']:>11} {row['cache_mib']:>9} {row['server_cores']:>5} "
          f"{row['compaction_cores']:>7}  "
          + " ".join(str(row["p99_ms_by_op"].get(k, "-")) for k in
                     ("op_get", "op_list", "op_session", "op_person", "op_decrypt", "op_verification"))
          + (f"  broker: {row['broker_cores']} cores, {row['broker_rss_mib']} MiB" if "broker_cores" in row else ""),
          flush=True)


while time.time() - begin < MINUTES * 60:
    due = begin + i / rate
    now = time.time()
    if due > now:
        time.sleep(min(due - now, 0.05))
        continue
    work.put((random.choice(OPS), due))
    i += 1
    if time.time() >= next_kill:
        next_kill += KILL_EVERY * 60
        state["down"] = True
        t_kill = time.time()
        server.send_signal(signal.SIGKILL)
        server.wait()
        ready = start_server(False)
        state["down"] = False
        kills.append({"at_min": round((t_kill - begin) / 60, 2), "restart_s": round(ready - t_kill, 2)})
    if time.time() >= next_minute:
        next_minute += 60
        rows = threading.Thread(target=minute_row, daemon=True)
        rows.start()
# The last minute's operations finish, then its row.
while not work.empty():
    time.sleep(0.1)
time.sleep(2)
stop.set()
rows.join()
minute_row()

# ---- every acknowledged write present ----
missing = []
reads = [(kind, path + id_) for kind, path in (("sessions", "/v1/verification-sessions/"), ("persons", "/v1/persons/"))
         for id_ in acked[kind]]


def read_back(part):
    for kind, url in part:
        st = None
        for _ in range(3):  # a kept connection closed while idle: again on a new one
            try:
                st, _ = call("GET", url)
                break
            except (OSError, http.client.HTTPException) as e:
                st = f"no answer: {e}"
        if st != 200:
            with lock:
                missing.append(f"{kind} {url}: {st}")


readers = [threading.Thread(target=read_back, args=(reads[k::8],)) for k in range(8)]
for t in readers:
    t.start()
for t in readers:
    t.join()
result = {"backend": BACKEND, "minutes": MINUTES, "capacity_ops_s": round(capacity) if capacity else None,
          "capacity_seconds": None if capacity is None else CAP_SECONDS, "capacity_curve_30s": capacity_curve,
          "rate_ops_s": round(rate),
          "kills": kills, "minutes_table": minute_stats, "acknowledged": {k: len(v) for k, v in acked.items()},
          "missing": missing[:100], "missing_count": len(missing), "errors": error_samples,
          "webhooks_received": received["count"]}
json.dump(result, open(os.path.join(WORK, "soak.json"), "w"), indent=1)
print(f"soak: kills {kills}; acknowledged {result['acknowledged']}, missing {len(missing)}; "
      f"errors after recovery {sum(r['errors'] for r in minute_stats)}; webhooks received {received['count']}", flush=True)
for e in error_samples[:10]:
    print("  error:", e)
server.send_signal(signal.SIGTERM)
server.wait()
if broker:
    broker.terminate()
sys.exit(1 if missing or sum(r["errors"] for r in minute_stats) else 0)
