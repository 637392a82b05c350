#!/usr/bin/env python3
"""A history checker for the cluster (issue 67), in Jepsen's way: clients write to a three-node
cluster while a nemesis injures it; every request is recorded with its invocation and completion
time and its answer, and the history is checked afterwards.

  tests/cluster/history.py SVC [--seconds N] [--clients N] [--report FILE] [--keep DIR]

The cluster: `svc dev-broker`, nodes A and B on the host and node Z in a network namespace of its
own (tests/cluster/netcut.py), all three writers of one writers' group. B's wall clock runs 30 s
ahead and Z's 20 s behind (--debug-clock-offset-seconds, tests only), for the whole run.

The clients (threads) send, to a node picked at random for each request:
  - person creates, each with its own Idempotency-Key: an e-mail of their own, often a CURP of a
    small pool (contended), often an externalRef of a small pool (an upsert);
  - company creates with an RFC of a small pool (each company's registry check ends in a
    `company.verification_completed` webhook to a receiver on the host);
  - retries of earlier requests, the same key and the same body;
  - reads of acknowledged persons, and searches of a pool CURP (POST /v1/persons/search).
A request that got no answer, a 5xx, a 429 or IDEMPOTENCY_KEY_IN_PROGRESS is indefinite: it may
or may not have happened. After the run every indefinite key is sent again until it is answered.

The nemesis, one fault at a time, each undone before the next, in turn until the time is up:
  kill9     kill -9 of A or B, restarted 2 s later
  pause     SIGSTOP of a node for longer than the writers' session timeout (4 s on the dev broker)
  midgroup  a burst of writes to a node and, as its writer appends them, SIGSTOP of it as above
  netcut    Z's network to the brokers cut for 8 s (requests to Z still arrive)
  broker    SIGSTOP of the dev broker for 3 s
(and the clock offsets, throughout).

Properties checked on the history (each violation printed; any one fails the run):
  lost        an acknowledged write (2xx) missing on some node: a read answered 404, during or
              after the run, or absent from a node's list once the cluster settled;
  unacked     a person or company on a node that no answer ever named (written twice, or
              written and never acknowledged, though every key was resolved);
  holders     two persons holding one CURP (a search finds two, on any node, at any time), two
              persons for one externalRef, two companies for one RFC;
  retries     a key answered two different definitive answers (status or body);
  webhooks    a receiver got an event more times than its delivery has attempts recorded (each
              scheduled attempt is posted at most once);
  5xx         a 500 (bad or unlucky input never gets one).
Prints the counts and writes them to --report as JSON (scripts/bench uses it).

If `svc dev-broker` itself dies (librdkafka 2.0.2's mock group coordinator asserts on some
SyncGroup sequences; see BrokerDied), the run is no verdict: it starts again once, from nothing,
and the report says so (dev_broker_deaths_before). A second death fails the run.
"""
import argparse
import base64
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from load import call, curp_with_check_digit, until  # noqa: E402
from partition_test import admin, fnv_partition  # noqa: E402

ROOT = os.path.join(HERE, "..", "..")
ALL = {0, 1, 2, 3}
COMMAND_TIMEOUT_MS = 3000
SESSION_S = 4  # the writers' session timeout on the dev broker (eventstore/kafka_client.h)
CURPS, REFS, RFCS = 12, 10, 6  # pool sizes per tenant: small, so that requests contend
SCOPES = ["persons:write", "persons:read", "kyb:write", "kyb:read", "webhook:write", "webhook:read"]
RFC_CHARS = "0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ \u00d1"


def rfc_with_check_digit(first11):
    """SAT's check digit of a company RFC (12 characters): each character's value times
    (13 - its position), over the 12-character form padded with a leading space."""
    padded = " " + first11
    total = sum(RFC_CHARS.index(c) * (13 - i) for i, c in enumerate(padded))
    d = 11 - total % 11
    return first11 + ("0" if d == 11 else "A" if d == 10 else str(d))


def pool_curp(i):
    return curp_with_check_digit(f"HIST{70 + i % 30:02d}0101HDFRRN{i % 10}")


def pool_rfc(i):
    return rfc_with_check_digit(f"HIS{10 + i:02d}0101A{chr(ord('A') + i)}")


INDEFINITE = {0, 429, 500, 502, 503, 504}


def indefinite(status, body):
    if status in INDEFINITE:
        return True
    return status == 409 and "IDEMPOTENCY_KEY_IN_PROGRESS" in json.dumps(body)


class Node:
    """One `svc serve`: on the host (port 0, its port file) or inside netcut.py's namespace."""

    def __init__(self, run, name, extra, netcut=False):
        self.run, self.name, self.extra, self.netcut = run, name, extra, netcut
        self.proc, self.net, self.base, self.stopped = None, None, None, False
        self.lock = threading.Lock()

    def flags(self):
        r = self.run
        return ["--data-dir", os.path.join(r.work, self.name), "--node-id", "node-" + self.name, "--log-backend",
                "kafka", "--kafka-brokers", r.brokers, "--kafka-writers", "group", "--master-key-file",
                os.path.join(r.work, "master.key"), "--dev-keys-in-data-dir", "--face-engine", "model-free",
                "--command-timeout-ms", str(COMMAND_TIMEOUT_MS), "--audit-checkpoint-interval-seconds", "3600",
                "--rate-reads", "0", "--rate-writes", "0", "--webhooks-allow-private-urls"] + self.extra

    def start(self):
        r = self.run
        err = open(os.path.join(r.work, self.name + ".err"), "a")
        if self.netcut:
            # The receiver's port goes through the bridge too, as the brokers' do: a cut cuts both.
            forwarded = r.brokers + f",127.0.0.1:{r.receiver_port}"
            self.proc = subprocess.Popen(
                [sys.executable, os.path.join(HERE, "netcut.py"), "run", os.path.join(r.work, "net"), forwarded,
                 "8080", "--", r.svc, "serve", "--listen", "127.0.0.1:8080"] + self.flags(),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
            self.net = self.proc
            self.base = "http://127.0.0.1:" + self.proc.stdout.readline().strip().split("=", 1)[1]
        else:
            port_file = os.path.join(r.work, self.name + ".port")
            if os.path.exists(port_file):
                os.remove(port_file)
            self.proc = subprocess.Popen([r.svc, "serve", "--listen", "127.0.0.1:0", "--port-file", port_file] +
                                         self.flags(), stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
            port = until(f"{self.name}'s port",
                         lambda: os.path.exists(port_file) and open(port_file).read().strip(), 60)
            self.base = f"http://127.0.0.1:{port}"
        until(f"{self.name} ready", lambda: call(self.base, "", "GET", "/readyz", timeout=5)[0] == 200, 120)

    def svc_pid(self):
        """The `svc serve` process (inside the namespace it is netcut's grandchild)."""
        if not self.netcut:
            return self.proc.pid
        out = subprocess.run(["pgrep", "-s", str(self.proc.pid), "-f", "svc.* serve"], capture_output=True,
                             text=True).stdout.split()
        pids = [int(p) for p in out if int(p) != self.proc.pid]
        return pids[-1] if pids else None

    def signal(self, sig):
        pid = self.svc_pid()
        if pid:
            os.kill(pid, sig)

    def control(self, word):
        self.net.stdin.write(word + "\n")
        self.net.stdin.flush()
        answer = self.net.stdout.readline().strip()
        if answer != "ok":
            raise SystemExit(f"FAIL: netcut {word}: {answer!r}")

    def kill9(self):
        self.proc.kill()
        self.proc.wait()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def stop(self):
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


class Run:
    def __init__(self, svc, work, seconds, clients):
        self.svc, self.work, self.seconds, self.clients = svc, work, seconds, clients
        self.history, self.hlock = [], threading.Lock()
        self.violations = []
        self.stop_clients = threading.Event()
        self.nemeses = {}
        self.broker = self.receiver = None
        self.nodes = {}

    # --- the record ---------------------------------------------------------------------------
    def record(self, **entry):
        with self.hlock:
            self.history.append(entry)

    def violation(self, kind, what):
        with self.hlock:
            self.violations.append({"kind": kind, "what": what})
        print(f"VIOLATION {kind}: {what}", file=sys.stderr, flush=True)

    # --- the cluster --------------------------------------------------------------------------
    def setup(self):
        self.broker = subprocess.Popen([self.svc, "dev-broker"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=open(os.path.join(self.work, "broker.err"), "w"), text=True,
                                       start_new_session=True)
        self.brokers = self.broker.stdout.readline().strip().split("=", 1)[1]
        key_path = os.path.join(self.work, "master.key")
        with open(key_path, "w") as f:
            f.write(base64.b64encode(os.urandom(32)).decode() + "\n")
        os.chmod(key_path, 0o600)
        self.receiver = subprocess.Popen(["node", os.path.join(ROOT, "tests", "receiver", "receiver.mjs")],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=open(os.path.join(self.work, "receiver.err"), "w"), text=True)
        self.receiver_port = int(self.receiver.stdout.readline().strip().split("=", 1)[1])
        self.nodes = {"a": Node(self, "a", []),
                      "b": Node(self, "b", ["--debug-clock-offset-seconds", "30"]),
                      "z": Node(self, "z", ["--debug-clock-offset-seconds", "-20"], netcut=True)}
        for n in self.nodes.values():
            n.start()
        until("the partitions shared by the three nodes", self.shared, 90)

        # Tenants on as many partitions as there are (a tenant's partition is the FNV-1a of its id).
        self.tenants = {}
        for i in range(60):
            st, t = admin(self.work, "a", "POST", "/admin/tenants", {"name": f"History {i}"})
            if st == 503:  # its outcome is unknown (the log did not answer in time): not used, the next one is
                continue
            assert st == 201, (st, t)
            p = fnv_partition(t["id"])
            if p not in {v["partition"] for v in self.tenants.values()}:
                st, made = until(f"a key of {t['id']}", lambda t=t: (lambda r: r if r[0] != 503 else None)(
                    admin(self.work, "a", "POST", f"/admin/tenants/{t['id']}/keys", {"scopes": SCOPES})), 60)
                assert st == 201, (st, made)
                self.tenants[t["id"]] = {"partition": p, "key": made["secret"]}
            if len(self.tenants) == 4:
                break
        for tenant, t in self.tenants.items():
            st, ep = until(f"the webhook endpoint of {tenant}", lambda t=t: (lambda r: r if r[0] == 201 else None)(
                call(self.nodes["a"].base, t["key"], "POST", "/v1/developer/webhooks",
                     {"url": f"http://127.0.0.1:{self.receiver_port}/hook", "events": ["company.*"]},
                     # A retry after an answer lost (a 503 of unknown outcome, a timeout) is the same
                     # endpoint, not a second one whose secret the receiver never learns.
                     {"Idempotency-Key": f"history-endpoint-{tenant}"})), 30)
            self.receiver.stdin.write(f"secret {ep['secret']}\n")
            self.receiver.stdin.flush()
            assert self.receiver.stdout.readline().strip() == "ok"
        print(f"cluster: 3 nodes, {len(self.tenants)} tenants on partitions "
              f"{sorted(t['partition'] for t in self.tenants.values())}", flush=True)

    def owned(self, node):
        st, b = call(node.base, "", "GET", "/node", timeout=5)
        return set(b["partitions"]["owned"]) if st == 200 and isinstance(b, dict) else None

    def shared(self):
        sets = [self.owned(n) for n in self.nodes.values()]
        if any(s is None for s in sets):
            return False
        union = set().union(*sets)
        return union == ALL and sum(len(s) for s in sets) == len(ALL)

    def teardown(self):
        for n in self.nodes.values():
            n.stop()
        for p in (self.receiver, self.broker):
            if p is not None and p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGCONT)
                except (ProcessLookupError, PermissionError):
                    pass
                p.kill()
                p.wait()

    # --- the clients --------------------------------------------------------------------------
    def send(self, client, tenant, method, path, body=None, key=None, op=None, node=None, timeout=20):
        node = node or random.choice(list(self.nodes.values()))
        headers = {"Idempotency-Key": key} if key else None
        t0 = time.monotonic()
        st, b = call(node.base, self.tenants[tenant]["key"], method, path, body, headers, timeout=timeout)
        t1 = time.monotonic()
        self.record(client=client, node=node.name, tenant=tenant, op=op, key=key, method=method, path=path,
                    body=body, invoked=round(t0 - self.t_start, 3), completed=round(t1 - self.t_start, 3),
                    status=st, answer=b)
        if st == 500:
            self.violation("5xx", f"{method} {path} on {node.name}: {b}")
        return node, st, b

    def client(self, c):
        rng = random.Random(c)
        mine = []  # (tenant, op, key, path, body) this client sent
        verified = set()
        n = 0
        while not self.stop_clients.is_set():
            n += 1
            tenant = rng.choice(list(self.tenants))
            roll = rng.random()
            if roll < 0.45 or not mine:
                body = {"pii": {"email": f"h{c}-{n}@example.mx"}}
                if rng.random() < 0.6:
                    body["pii"]["curp"] = pool_curp(rng.randrange(CURPS))
                if rng.random() < 0.5:
                    body["externalRef"] = f"cliente-{rng.randrange(REFS)}"
                req = (tenant, "person", f"h{c}-{n}", "/v1/persons", body)
            elif roll < 0.60:
                body = {"legalName": f"Empresa {c}-{n}, S.A. de C.V.", "rfc": pool_rfc(rng.randrange(RFCS))}
                req = (tenant, "company", f"h{c}-{n}", "/v1/companies", body)
            elif roll < 0.85:
                req = rng.choice(mine)
                tenant = req[0]
            elif roll < 0.95:
                acked = self.acked_persons(tenant)
                if acked:
                    pid = rng.choice(acked)
                    node, st, b = self.send(c, tenant, "GET", f"/v1/persons/{pid}", op="read")
                    if st == 404:
                        self.violation("lost", f"person {pid} (acknowledged) read 404 on {node.name}")
                continue
            else:
                curp = pool_curp(rng.randrange(CURPS))
                node, st, b = self.send(c, tenant, "POST", "/v1/persons/search", {"field": "curp", "value": curp},
                                        op="search")
                if st == 200 and len(b.get("data", [])) > 1:
                    self.violation("holders", f"{len(b['data'])} persons hold one CURP on {node.name}: "
                                              f"{[p['id'] for p in b['data']]}")
                continue
            if req not in mine:
                mine.append(req)
            tenant, op, key, path, body = req
            node, st, b = self.send(c, tenant, "POST", path, body, key=key, op=op)
            if op == "company" and st == 201 and b["id"] not in verified:
                # The registry check, screening and its webhook (company.verification_completed).
                verified.add(b["id"])
                self.send(c, tenant, "POST", f"/v1/companies/{b['id']}/verify", op="verify")

    def acked_persons(self, tenant):
        with self.hlock:
            return [h["answer"]["id"] for h in self.history[-2000:]
                    if h["op"] == "person" and h["tenant"] == tenant and 200 <= h["status"] < 300]

    # --- the nemesis --------------------------------------------------------------------------
    def alive(self, what):
        if self.broker.poll() is not None:
            raise BrokerDied(self.broker_death())
        for n in self.nodes.values():
            if n.proc.poll() is not None:
                self.violation("exit", f"node {n.name} exited by itself ({n.proc.returncode}) during {what}")
                raise SystemExit(f"FAIL: node {n.name} exited by itself (status {n.proc.returncode})")
        return True

    def broker_death(self):
        """The dev broker's last words (librdkafka's mock cluster asserts on some group sequences)."""
        lines = [l.strip() for l in open(os.path.join(self.work, "broker.err"), errors="replace") if l.strip()]
        return lines[-1] if lines else f"exit status {self.broker.returncode}"

    def heal_wait(self, what):
        try:
            until(f"the cluster healed after {what}", lambda: self.alive(what) and self.shared(), 120)
        except SystemExit:
            if self.broker.poll() is not None:
                raise BrokerDied(self.broker_death())
            for n in self.nodes.values():
                st, b = call(n.base, "", "GET", "/node", timeout=5)
                print(f"{n.name}: GET /node {st} {json.dumps(b)[:600]}", file=sys.stderr)
            raise
        for n in self.nodes.values():
            until(f"{n.name} ready after {what}",
                  lambda n=n: call(n.base, "", "GET", "/readyz", timeout=5)[0] == 200, 120)

    def count(self, what):
        self.nemeses[what] = self.nemeses.get(what, 0) + 1
        print(f"{time.monotonic() - self.t_start:6.1f} s  nemesis {what}", flush=True)

    def nemesis(self, until_t, rng):
        kinds = ["kill9", "pause", "netcut", "broker", "midgroup"]
        i = 0
        while time.monotonic() < until_t:
            kind = kinds[i % len(kinds)]
            i += 1
            if kind == "kill9":
                node = self.nodes[rng.choice("ab")]
                self.count(f"kill9 {node.name}")
                node.kill9()
                time.sleep(2)  # the nemesis's own pace, not a wait for an outcome
                node.start()
            elif kind == "pause":
                node = self.nodes[rng.choice("abz")]
                self.count(f"pause {node.name}")
                node.signal(signal.SIGSTOP)
                time.sleep(SESSION_S + 2)
                node.signal(signal.SIGCONT)
            elif kind == "midgroup":
                node = self.nodes[rng.choice("ab")]
                tenant = next((t for t, v in self.tenants.items() if v["partition"] in (self.owned(node) or ())),
                              rng.choice(list(self.tenants)))
                self.count(f"midgroup {node.name}")
                burst = [threading.Thread(target=self.burst_one, args=(node, tenant, j)) for j in range(32)]
                for t in burst:
                    t.start()
                time.sleep(0.05 + rng.random() * 0.1)
                node.signal(signal.SIGSTOP)
                time.sleep(SESSION_S + 2)
                node.signal(signal.SIGCONT)
                for t in burst:
                    t.join()
            elif kind == "netcut":
                self.count("netcut z")
                z = self.nodes["z"]
                z.control("cut")
                time.sleep(SESSION_S * 2)
                z.control("heal")
            elif kind == "broker":
                self.count("broker pause")
                os.kill(self.broker.pid, signal.SIGSTOP)
                time.sleep(3)
                os.kill(self.broker.pid, signal.SIGCONT)
            self.heal_wait(kind)
            time.sleep(2)

    def burst_one(self, node, tenant, j):
        key = f"burst-{node.name}-{time.monotonic_ns()}-{j}"
        body = {"pii": {"email": f"{key}@example.mx", "curp": pool_curp(j % CURPS)}}
        self.send("burst", tenant, "POST", "/v1/persons", body, key=key, op="person", node=node, timeout=30)

    # --- the run ------------------------------------------------------------------------------
    def go(self):
        self.t_start = time.monotonic()
        threads = [threading.Thread(target=self.client, args=(c,), daemon=True) for c in range(self.clients)]
        for t in threads:
            t.start()
        time.sleep(2)  # some history before the first fault
        self.nemesis(self.t_start + self.seconds, random.Random(67))
        self.stop_clients.set()
        for t in threads:
            t.join()
        self.heal_wait("the run")
        print(f"{time.monotonic() - self.t_start:6.1f} s  run over: {len(self.history)} requests", flush=True)

    def resolve(self):
        """Every key whose answers were all indefinite is sent again until it is answered."""
        by_key = self.by_key()
        open_keys = [k for k, hs in by_key.items() if all(indefinite(h["status"], h["answer"]) for h in hs)]
        for k in open_keys:
            h = by_key[k][0]
            def answered(h=h, k=k):
                node, st, b = self.send("resolve", h["tenant"], "POST", h["path"], h["body"], key=k, op=h["op"])
                return not indefinite(st, b)
            until(f"an answer for {k}", answered, 60)
        return len(open_keys)

    def by_key(self):
        out = {}
        for h in self.history:
            if h["key"]:
                out.setdefault(h["key"], []).append(h)
        for hs in out.values():
            hs.sort(key=lambda h: h["completed"])
        return out

    def pages(self, node, tenant, path):
        items, after = [], None
        while True:
            q = path + ("&" if "?" in path else "?") + "limit=100" + (f"&startingAfter={after}" if after else "")
            st, b = until(f"{path} on {node.name}", lambda: (lambda r: r if r[0] == 200 else None)(
                call(node.base, self.tenants[tenant]["key"], "GET", q, timeout=20)), 60)
            items += b["data"]
            if not b.get("hasMore"):
                return items
            after = urllib.parse.quote(b.get("nextCursor") or b["data"][-1]["id"])

    def check(self):
        by_key = self.by_key()
        # retries: every definitive answer of a key is the first one.
        # A key first answered 4xx wrote nothing and is decided again when sent again (a CURP's
        # holder may have let it go meanwhile); from its first 2xx on, a key has one answer.
        wrong_retries = 0
        for k, hs in by_key.items():
            definitive = [h for h in hs if not indefinite(h["status"], h["answer"])]
            written = [i for i, h in enumerate(definitive) if 200 <= h["status"] < 300]
            if not written:
                continue
            first = definitive[written[0]]
            for h in definitive[written[0] + 1:]:
                if (h["status"], h["answer"]) != (first["status"], first["answer"]):
                    wrong_retries += 1
                    self.violation("retries", f"key {k}: first {first['status']} {first['answer']} at "
                                              f"{first['completed']} s, then {h['status']} {h['answer']} at "
                                              f"{h['completed']} s on {h['node']}")
        acked = {}  # (tenant, kind) -> {id: key}
        for k, hs in by_key.items():
            for h in hs:
                if 200 <= h["status"] < 300 and isinstance(h["answer"], dict) and "id" in h["answer"]:
                    acked.setdefault((h["tenant"], h["op"]), {})[h["answer"]["id"]] = k
        # holders, as the answers tell them: one person per externalRef, one company per RFC.
        refs, rfcs = {}, {}
        for k, hs in by_key.items():
            for h in hs:
                if not (200 <= h["status"] < 300):
                    continue
                if h["op"] == "person" and h["body"].get("externalRef"):
                    refs.setdefault((h["tenant"], h["body"]["externalRef"]), set()).add(h["answer"]["id"])
                if h["op"] == "company":
                    rfcs.setdefault((h["tenant"], h["body"]["rfc"]), set()).add(h["answer"]["id"])
        for (tenant, ref), ids in refs.items():
            if len(ids) > 1:
                self.violation("holders", f"externalRef {ref} of {tenant} answered as {sorted(ids)}")
        for (tenant, rfc), ids in rfcs.items():
            if len(ids) > 1:
                self.violation("holders", f"RFC {rfc} of {tenant} answered as {sorted(ids)}")
        # lost and unacked: every node holds exactly the acknowledged persons and companies.
        checked = 0
        for node in self.nodes.values():
            for tenant in self.tenants:
                for kind, path in (("person", "/v1/persons"), ("company", "/v1/companies")):
                    want = set(acked.get((tenant, kind), {}))
                    items = self.pages(node, tenant, path)
                    have = {x["id"] for x in items}
                    for missing in sorted(want - have):
                        st, b = call(node.base, self.tenants[tenant]["key"], "GET", f"{path}/{missing}")
                        self.violation("lost", f"{kind} {missing} (key {acked[(tenant, kind)][missing]}) not in "
                                               f"{node.name}'s list; GET {st}")
                    for extra in sorted(have - want):
                        self.violation("unacked", f"{kind} {extra} on {node.name}, named by no answer")
                    checked += len(want)
                    if kind == "company":
                        by_rfc = {}
                        for co in items:
                            if co.get("rfc"):
                                by_rfc.setdefault(co["rfc"], []).append(co["id"])
                        for rfc, ids in by_rfc.items():
                            if len(ids) > 1:
                                self.violation("holders", f"RFC {rfc}: companies {ids} on {node.name}")
                # holders, as the nodes tell them: a search of each pool CURP finds one person at most.
                for i in range(CURPS):
                    st, b = call(node.base, self.tenants[tenant]["key"], "POST", "/v1/persons/search",
                                 {"field": "curp", "value": pool_curp(i)})
                    if st != 200:
                        self.violation("lost", f"search on {node.name} after the run: {st} {b}")
                    elif len(b["data"]) > 1:
                        self.violation("holders", f"CURP #{i}: {[p['id'] for p in b['data']]} on {node.name}")
        return wrong_retries, checked

    def check_webhooks(self):
        """Each event reached the receiver at most as many times as its delivery has attempts."""
        a = self.nodes["a"]
        def settled():
            out = []
            for tenant, t in self.tenants.items():
                items = self.pages(a, tenant, "/v1/developer/webhooks/deliveries")
                if any(d["status"] == "pending" for d in items):
                    return None
                out += items
            return out
        deliveries = until("every webhook delivery sent or failed", settled, 120)
        st, log = call(f"http://127.0.0.1:{self.receiver_port}", "", "GET", "/log")
        assert st == 200, st
        posts = {}
        for m in log:
            if m["path"] == "/hook":
                posts[m["id"]] = posts.get(m["id"], 0) + 1
                if not m.get("verifiedBy"):
                    self.violation("webhooks", f"a post the Standard Webhooks package does not verify: {m['id']}")
        attempts = {}
        for d in deliveries:
            if d.get("eventId"):
                attempts[d["eventId"]] = attempts.get(d["eventId"], 0) + d["attempts"]
        over = 0
        for event, n in posts.items():
            if n > attempts.get(event, 0):
                over += 1
                self.violation("webhooks", f"event {event} posted {n} times, {attempts.get(event, 0)} attempts")
        companies = sum(1 for d in deliveries if d.get("eventType") == "company.verification_completed")
        return len(deliveries), sum(posts.values()), companies, over


class BrokerDied(Exception):
    """`svc dev-broker` (librdkafka's mock cluster) stopped under the run: a defect of the mock, not
    of the service (its group coordinator asserts when a member's SyncGroup comes again while its
    first is held, `rd_kafka_mock_cgrp_member_sync_set: Assertion '!member->resp'`, seen once in
    three 10-minute runs). The run is then not a verdict either way; main() starts it again once."""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("svc")
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--report")
    ap.add_argument("--keep", help="copy the work directory (history.jsonl, logs) here")
    o = ap.parse_args()
    for attempt in (1, 2):
        try:
            return one_run(o, broker_deaths=attempt - 1)
        except BrokerDied as e:
            print(f"the dev broker died under run {attempt}: {e}", file=sys.stderr, flush=True)
            if attempt == 2:
                raise SystemExit("FAIL: the dev broker died twice; no verdict on the service")
            print("(librdkafka's mock cluster, not the service: the run starts again, from nothing)", flush=True)


def one_run(o, broker_deaths):
    work = tempfile.mkdtemp(prefix="svc-history-")
    run = Run(os.path.realpath(o.svc), work, o.seconds, o.clients)
    ok = False
    try:
        run.setup()
        run.go()
        resolved = run.resolve()
        wrong, checked = run.check()
        deliveries, posts, company_events, over = run.check_webhooks()
        hist = run.history
        writes = [h for h in hist if h["key"]]
        report = {
            "seconds": o.seconds, "clients": o.clients, "requests": len(hist),
            "writes": len(writes), "acknowledged": sum(1 for h in writes if 200 <= h["status"] < 300),
            "indefinite": sum(1 for h in writes if indefinite(h["status"], h["answer"])),
            "retried_keys": sum(1 for k, hs in run.by_key().items() if len(hs) > 1),
            "resolved_after": resolved, "checked_on_every_node": checked,
            "webhook_deliveries": deliveries, "webhook_posts": posts, "company_events": company_events,
            "nemeses": run.nemeses, "dev_broker_deaths_before": broker_deaths,
            "violations": {k: sum(1 for v in run.violations if v["kind"] == k)
                           for k in ("lost", "unacked", "holders", "retries", "webhooks", "5xx", "exit")},
        }
        print(json.dumps(report, indent=1))
        if o.report:
            with open(o.report, "w") as f:
                json.dump(report, f, indent=1)
        kinds = {k.split()[0] for k in run.nemeses}
        if run.violations:
            raise SystemExit(f"FAIL: {len(run.violations)} violations (above)")
        if not kinds >= {"kill9", "pause", "netcut", "broker"}:
            raise SystemExit(f"FAIL: not every nemesis ran: {run.nemeses}")
        print(f"history: {report['requests']} requests, {report['acknowledged']} writes acknowledged, "
              f"{report['indefinite']} indefinite, 0 violations; nemeses {run.nemeses}")
        ok = True
    finally:
        run.stop_clients.set()
        with open(os.path.join(work, "history.jsonl"), "w") as f:
            for h in run.history:
                f.write(json.dumps(h) + "\n")
        run.teardown()
        if not ok:
            for name in ("a.err", "b.err", "z.err", "broker.err"):
                path = os.path.join(work, name)
                if os.path.exists(path):
                    lines = [l for l in open(path, errors="replace") if '"level":"info"' not in l]
                    print(f"--- {name} (last 30)\n" + "".join(lines[-30:]), file=sys.stderr)
        if o.keep or (not ok and os.environ.get("HISTORY_KEEP")):
            dest = o.keep or os.environ["HISTORY_KEEP"]
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(work, dest, symlinks=True, ignore=shutil.ignore_patterns("*.sock"))
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
