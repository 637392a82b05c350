#!/usr/bin/env python3
"""A node cut from Kafka (ctest integration.cluster_partition; labels integration, kafka, cluster).

Two writers' group nodes on `svc dev-broker`: node A on the host, node Z in a network namespace of
its own whose only way to the brokers is a bridge this test cuts (tests/cluster/netcut.py: the
mock cluster cannot cut one client). Z writes the test tenant's partition when the cut comes.
Asserts what a client of each node sees:
  - during the cut, every write sent to Z is answered 503 (never a success the log does not hold),
    and so is a read of a person Z cannot know yet (a 404 would be a stale answer);
  - A takes every partition over once Z's session expires, fencing Z's producers, and writes;
  - Z lets go of its partitions by itself (librdkafka's own session check) while still cut;
  - healed, Z rejoins and writes again; the writes it answered 503 are retried with their
    Idempotency-Key on either node and give one person each; every acknowledged write is on both
    nodes exactly once, and nothing else is.
  tests/cluster/partition_test.py SVC_BINARY
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# call: one request (status 0 for a refused or cut connection); until: a bounded wait for what a
# node shows.
from load import call, until  # noqa: E402

ALL = {0, 1, 2, 3}
COMMAND_TIMEOUT_MS = 3000


def fnv_partition(tenant, partitions=4):
    """eventstore::PartitionForTenant: FNV-1a 64 of the tenant id, modulo the partitions."""
    h = 1469598103934665603
    for c in tenant.encode():
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h % partitions


class Cluster:
    def __init__(self, work):
        self.work, self.procs = work, []

    def spawn(self, args, name, **kw):
        # A process group each: the netcut bridge's node is its grandchild, and goes with it.
        p = subprocess.Popen(args, stderr=open(os.path.join(self.work, name + ".err"), "w"), start_new_session=True,
                             **kw)
        self.procs.append(p)
        return p

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(p.pid, signal.SIGKILL)  # whatever is left of its group
            except ProcessLookupError:
                pass
            p.wait()


def node_flags(brokers, work, name):
    return ["--data-dir", os.path.join(work, name), "--node-id", "node-" + name, "--log-backend", "kafka",
            "--kafka-brokers", brokers, "--kafka-writers", "group", "--master-key-file",
            os.path.join(work, "master.key"), "--dev-keys-in-data-dir", "--face-engine", "model-free",
            "--command-timeout-ms", str(COMMAND_TIMEOUT_MS), "--audit-checkpoint-interval-seconds", "3600"]


def owned(port):
    st, node = call(f"http://127.0.0.1:{port}", "", "GET", "/node", timeout=10)
    return set(node["partitions"]["owned"]) if st == 200 else None


def admin(work, name, method, path, body=None):
    """A request on a node's admin socket (curl: http.client has no unix sockets)."""
    service_key = open(os.path.join(work, name, "service.key")).read().strip()
    args = ["curl", "-s", "-w", "\n%{http_code}", "--unix-socket", os.path.join(work, name, "admin.sock"),
            "-X", method, "-H", "Authorization: Bearer " + service_key, "http://admin" + path]
    if body is not None:
        args += ["-H", "Content-Type: application/json", "-d", json.dumps(body)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    text, _, code = out.rpartition("\n")
    return int(code), json.loads(text) if text else None


def main(svc):
    work = tempfile.mkdtemp(prefix="svc-partition-")
    cluster = Cluster(work)
    ok = False
    try:
        run(cluster, svc, work)
        ok = True
    finally:
        cluster.stop()
        if not ok:
            for name in ("a.err", "z.err", "broker.err"):
                path = os.path.join(work, name)
                if os.path.exists(path):
                    lines = [l for l in open(path, errors="replace") if '"level":"info"' not in l]
                    print(f"--- {name} (not info, last 40)\n" + "".join(lines[-40:]), file=sys.stderr)
            keep = os.environ.get("PARTITION_TEST_KEEP")
            if keep:
                shutil.rmtree(keep, ignore_errors=True)
                shutil.copytree(work, keep, symlinks=True, ignore=shutil.ignore_patterns("*.sock"))
        shutil.rmtree(work, ignore_errors=True)


def run(cluster, svc, work):
    broker = cluster.spawn([svc, "dev-broker"], "broker", stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    brokers = broker.stdout.readline().strip().split("=", 1)[1]
    with open(os.path.join(work, "master.key"), "w") as f:
        f.write(__import__("base64").b64encode(os.urandom(32)).decode() + "\n")
    os.chmod(os.path.join(work, "master.key"), 0o600)

    port_file = os.path.join(work, "a.port")
    cluster.spawn([svc, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file] +
                  node_flags(brokers, work, "a"), "a", stdout=subprocess.DEVNULL)
    a_port = int(until("node A's port", lambda: os.path.exists(port_file) and open(port_file).read().strip(), 60))
    # Z listens on a fixed port inside its namespace (nothing else is there); the bridge gives it a
    # free one on the host.
    net = cluster.spawn([sys.executable, os.path.join(HERE, "netcut.py"), "run", os.path.join(work, "net"), brokers,
                         "8080", "--", svc, "serve", "--listen", "127.0.0.1:8080"] + node_flags(brokers, work, "z"),
                        "z", stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    z_port = int(net.stdout.readline().strip().split("=", 1)[1])

    def control(word):
        net.stdin.write(word + "\n")
        net.stdin.flush()
        answer = net.stdout.readline().strip()
        if answer != "ok":
            raise SystemExit(f"FAIL: netcut {word}: {answer!r}")

    A, Z = f"http://127.0.0.1:{a_port}", f"http://127.0.0.1:{z_port}"
    for base in (A, Z):
        until(f"{base}/readyz", lambda b=base: call(b, "", "GET", "/readyz", timeout=5)[0] == 200, 120)

    def shared():
        oa, oz = owned(a_port), owned(z_port)
        return oa and oz and not (oa & oz) and (oa | oz) == ALL
    until("the partitions shared by A and Z", shared, 60)

    # A tenant whose partition Z writes (tenants are placed by the FNV-1a of their id).
    z_owns = owned(z_port)
    for i in range(40):
        st, t = admin(work, "a", "POST", "/admin/tenants", {"name": f"Partition {i}"})
        assert st == 201, (st, t)
        if fnv_partition(t["id"]) in z_owns:
            tenant = t["id"]
            break
    else:
        raise SystemExit("FAIL: no tenant on Z's partitions in 40")
    st, made = admin(work, "a", "POST", f"/admin/tenants/{tenant}/keys", {"scopes": ["persons:write", "persons:read", "verification:write", "verification:read"]})
    assert st == 201, (st, made)
    key = made["secret"]
    partition = fnv_partition(tenant)
    print(f"tenant {tenant} on partition {partition}, written by Z (Z owns {sorted(z_owns)})")

    def create(base, idem, timeout=60):
        return call(base, key, "POST", "/v1/persons", {"pii": {"email": f"{idem}@example.mx"}},
                    {"Idempotency-Key": idem}, timeout=timeout)

    def create_session(base, idem, timeout=60):
        return call(base, key, "POST", "/v1/verification-sessions", {"channel": "api"}, {"Idempotency-Key": idem},
                    timeout=timeout)

    acked = {}  # Idempotency-Key -> person id, for every 201
    for base, idem in ((Z, "before-z"), (A, "before-a")):
        st, b = until(f"{idem}: 201", lambda: (lambda r: r if r[0] == 201 else None)(create(base, idem)), 30)
        acked[idem] = b["id"]
    until("Z has A's person", lambda: call(Z, key, "GET", f"/v1/persons/{acked['before-a']}")[0] == 200, 30)

    # The cut. Person creates first publish the person's key to the keys topic; session creates go
    # straight to the writer (Z's own, while it still holds the partition). Each is answered 503
    # within a few command waits (3 s here), not after librdkafka's 30 s message timeout.
    control("cut")
    t_cut = time.monotonic()
    answers = {}
    def write_z(idem, send):
        t0 = time.monotonic()
        answers[idem] = send(Z, idem) + (time.monotonic() - t0,)
    writes = [(f"cut-z-{i}", create) for i in range(1, 4)] + [(f"cut-z-s{i}", create_session) for i in range(1, 3)]
    threads = [threading.Thread(target=write_z, args=w) for w in writes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for idem, (st, b, took) in sorted(answers.items()):
        if st != 503:
            raise SystemExit(f"FAIL: a write to Z during the cut: {idem}: {st} {b} (503 expected: nothing reached the log)")
        if took > 5 * COMMAND_TIMEOUT_MS / 1000:
            raise SystemExit(f"FAIL: Z answered {idem} after {took:.1f} s (the command wait is {COMMAND_TIMEOUT_MS} ms)")
    slowest = max(took for _, _, took in answers.values())
    print(f"cut: Z answered its {len(writes)} writes 503, the slowest after {slowest:.1f} s")

    # A takes every partition over (Z's session expires at the broker), fencing Z's producers.
    until("A writes every partition", lambda: owned(a_port) == ALL, 60)
    took = time.monotonic() - t_cut
    for i in range(1, 4):
        idem = f"cut-a-{i}"
        st, b = until(f"{idem} through A: 201",
                      lambda: (lambda r: r if r[0] == 201 else None)(create(A, idem, timeout=30)), 30)
        acked[idem] = b["id"]
    print(f"cut: A wrote every partition {took:.1f} s after the cut, and its writes succeed")

    # Z lets go of its partitions by itself, though it hears nothing from the broker.
    until("Z owns no partition while cut", lambda: owned(z_port) == set(), 60)
    print(f"cut: Z gave up its partitions {time.monotonic() - t_cut:.1f} s after the cut")
    st, b = create(Z, "cut-z-4")
    if st != 503:
        raise SystemExit(f"FAIL: a write to Z, cut and without partitions: {st} {b}")
    # A person made through A after the cut: Z cannot know it, and must not say it does not exist.
    t_read = time.monotonic()
    st, b = call(Z, key, "GET", f"/v1/persons/{acked['cut-a-1']}", timeout=60)
    took = time.monotonic() - t_read
    if st != 503:
        raise SystemExit(f"FAIL: Z, cut, read a person written after the cut: {st} {b} (503 expected, never 404)")
    if took > 15:
        raise SystemExit(f"FAIL: Z answered the read after {took:.1f} s (a miss waits at most 5 s for the log's end)")
    print(f"cut: Z answered a read of a person written after the cut 503 after {took:.1f} s")
    st, b = call(Z, key, "GET", f"/v1/persons/{acked['before-z']}")
    if st != 200:
        raise SystemExit(f"FAIL: Z, cut, read a person it holds: {st} {b}")

    # Healed: Z rejoins the group and writes again.
    control("heal")
    t_heal = time.monotonic()
    until("the partitions shared again", shared, 90)
    st, b = until("after-z through Z: 201",
                  lambda: (lambda r: r if r[0] == 201 else None)(create(Z, "after-z", timeout=30)), 60)
    acked["after-z"] = b["id"]
    print(f"heal: Z writes again; the partitions shared {time.monotonic() - t_heal:.1f} s after the heal")

    # Every write Z answered 503 is retried with its key, on either node: one person (session) each.
    retried = {}
    for i, idem in enumerate(sorted(f"cut-z-{i}" for i in range(1, 5))):
        base = (A, Z)[i % 2]
        st, b = until(f"{idem} retried: 201",
                      lambda: (lambda r: r if r[0] == 201 else None)(create(base, idem, timeout=30)), 30)
        retried[idem] = b["id"]
    sessions = {}
    for i, idem in enumerate(("cut-z-s1", "cut-z-s2")):
        base = (Z, A)[i % 2]
        st, b = until(f"{idem} retried: 201",
                      lambda: (lambda r: r if r[0] == 201 else None)(create_session(base, idem, timeout=30)), 30)
        sessions[idem] = b["id"]
    for idem, sid in sessions.items():
        for base in (A, Z):
            st, b = create_session(base, idem)
            if st != 201 or b["id"] != sid:
                raise SystemExit(f"FAIL: session {idem} sent again to {base}: {st} {b} (the first result {sid} expected)")
    def session_ids(base):
        st, b = call(base, key, "GET", "/v1/verification-sessions?limit=100")
        return sorted(x["id"] for x in b["data"]) if st == 200 else None
    for base in (A, Z):
        until(f"the two sessions, once each, on {base}", lambda b=base: session_ids(b) == sorted(sessions.values()), 30)
    for idem, pid in list(acked.items()) + list(retried.items()):
        for base in (A, Z):
            st, b = create(base, idem)
            if st != 201 or b["id"] != pid:
                raise SystemExit(f"FAIL: {idem} sent again to {base}: {st} {b} (the first result {pid} expected)")
    want = set(acked.values()) | set(retried.values())
    if len(want) != len(acked) + len(retried):
        raise SystemExit(f"FAIL: two keys gave one person: {acked} {retried}")

    def persons(base):
        st, b = call(base, key, "GET", "/v1/persons?limit=100")
        return [p["id"] for p in b["data"]] if st == 200 else None
    for base in (A, Z):
        until(f"every acknowledged person, once, on {base}",
              lambda b=base: (lambda ids: ids is not None and sorted(ids) == sorted(want))(persons(b)), 30)
    print(f"after: {len(want)} persons on both nodes, each once ({len(acked)} acknowledged, "
          f"{len(retried)} written on retry after a 503)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(os.path.realpath(sys.argv[1]))
