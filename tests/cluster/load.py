#!/usr/bin/env python3
"""The cluster's load test client (tests/cluster/front_test.sh): what a user sends through the
front while nodes stop, die and come back, and what must hold afterwards.

  load.py drive FRONT KEY WORK CLIENT   until WORK/stop exists: person creates and session creates,
                                        each sent twice with one Idempotency-Key; decrypts of the
                                        persons made; full verifications of docs/samples
  load.py check FRONT KEY WORK RECEIVER NODE...
                                        afterwards: against the front, the webhook receiver's port
                                        (tests/receiver) and every node's own port
  load.py curp KEY ROUNDS NODE...       the same CURP sent to every node's own port at once, ROUNDS
                                        times (a new CURP each round): exactly one 201 per CURP, and
                                        409 CURP_CONFLICT for every other

drive appends one JSON line per acknowledged operation to WORK/acked.CLIENT.jsonl and one per
failure to WORK/failed.CLIENT.jsonl; check reads them all. Nothing here decides timing: every
wait is for something a node shows, bounded.
"""
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "samples")
STAGES = {"document", "liveness", "face_match", "deepfake", "gov_curp", "gov_ine"}  # one result each, no more
def submitted_state(r):  # a session's state once submitted: processing, or decided
    return r.get("status") in ("approved", "declined", "review") or r.get("currentStep") == "processing"
REASON = "cluster load test"  # the decrypts' reason: their access-log entries carry it
VERDICTS = {"verification.approved", "verification.declined", "verification.review_required",
            "verification.more_info_requested"}


def call(base, key, method, path, body=None, headers=None, timeout=60):
    """One request; (status, parsed body or raw text). A refused or cut connection is status 0."""
    u = urllib.parse.urlparse(base)
    h = {"Authorization": "Bearer " + key}
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    h.update(headers or {})
    try:
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
    except (OSError, http.client.HTTPException) as e:
        return 0, str(e)
    try:
        return r.status, json.loads(data) if data else None
    except ValueError:
        return r.status, data.decode("utf-8", "replace")


def multipart(kind, mime, data):
    b = "load" + os.urandom(8).hex()
    body = (f"--{b}\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\n{kind}\r\n"
            f"--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c\"\r\n"
            f"Content-Type: {mime}\r\n\r\n").encode() + data + f"\r\n--{b}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={b}"}


def shows(front, key, path, wanted, limit=15):
    """A write without an Idempotency-Key (consent, submit) that did not answer 200: nginx retries a
    request whose node died mid-way on the next node, and the retry of a write that was taken is
    refused (409 'already submitted'). A careful client then reads the resource: the write counts
    if the session shows it (within `limit` s: another node's read model may trail)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        st, r = call(front, key, "GET", path)
        if st == 200 and isinstance(r, dict) and wanted(r):
            return True
        time.sleep(0.2)
    return False


def drive(front, key, work, client):
    captures = [(kind, mime, open(os.path.join(SAMPLES, name), "rb").read())
                for kind, mime, name in [("document_front", "image/jpeg", "front.jpg"),
                                         ("document_back", "image/jpeg", "back.jpg"),
                                         ("selfie", "image/jpeg", "selfie.jpg"),
                                         ("liveness_video", "video/mp4", "video.mp4")]]
    acked = open(os.path.join(work, f"acked.{client}.jsonl"), "a", buffering=1)
    failed = open(os.path.join(work, f"failed.{client}.jsonl"), "a", buffering=1)

    def ack(**kw):
        acked.write(json.dumps(kw) + "\n")

    def fail(what, status, body):
        failed.write(json.dumps({"what": what, "status": status, "body": str(body)[:300]}) + "\n")

    def twice(what, path, body, idem):
        """The write, then the same write again with its Idempotency-Key: the first result twice."""
        s1, b1 = call(front, key, "POST", path, body, {"Idempotency-Key": idem})
        if s1 != 201:
            fail(what, s1, b1)
            return None
        s2, b2 = call(front, key, "POST", path, body, {"Idempotency-Key": idem})
        if s2 != 201 or b2 != b1:
            fail(what + " retried with its Idempotency-Key", s2, {"again": b2, "first": b1})  # the answer that differs first
        return b1

    i = 0
    while not os.path.exists(os.path.join(work, "stop")):
        i += 1
        tag = f"{client}-{i}-{os.urandom(3).hex()}"
        person = twice("person create", "/v1/persons", {"pii": {"email": f"load-{tag}@example.mx"}}, "p-" + tag)
        if person is not None:
            ack(kind="person", id=person["id"])
            if i % 2 == 0:
                s, b = call(front, key, "POST", f"/v1/persons/{person['id']}/decrypt",
                            {"fields": ["email"], "purpose": "identity_verification", "reason": REASON})
                if s == 200 and b.get("fields", {}).get("email") == f"load-{tag}@example.mx":
                    ack(kind="decrypt", person=person["id"])
                else:
                    fail("decrypt", s, b)
        session = twice("session create", "/v1/verification-sessions",
                        {"channel": "api", "policy": {"testOutcome": "approved"}}, "s-" + tag)
        if session is None:
            continue
        ack(kind="session", id=session["id"])
        if i % 3 != 1:
            continue
        base = f"/v1/verification-sessions/{session['id']}"
        s, b = call(front, key, "POST", base + "/consent", {"accepted": True})
        ok = s == 200 or shows(front, key, base, lambda r: (r.get("consent") or {}).get("consentGiven") is True)
        for kind, mime, data in captures if ok else []:
            body, headers = multipart(kind, mime, data)
            s, b = call(front, key, "POST", base + "/media", body, headers, timeout=120)
            ok = ok and s == 201
            if not ok:
                break
        if ok:
            s, b = call(front, key, "POST", base + "/submit")
            ok = s == 200 or shows(front, key, base, submitted_state)
        if ok:
            ack(kind="submitted", id=session["id"])
        else:
            fail("verification " + session["id"], s, b)


def until(what, done, limit):
    deadline = time.monotonic() + limit
    while True:
        result = done()
        if result:
            return result
        if time.monotonic() > deadline:
            raise SystemExit(f"FAIL: {what} (waited {limit} s)")
        time.sleep(0.2)


def check(front, key, work, receiver, nodes):
    acked, failed = [], []
    for name in sorted(os.listdir(work)):
        if name.startswith("acked."):
            acked += [json.loads(line) for line in open(os.path.join(work, name))]
        if name.startswith("failed."):
            failed += [json.loads(line) for line in open(os.path.join(work, name))]
    of = lambda kind: [a for a in acked if a["kind"] == kind]
    persons, sessions, submitted, decrypts = of("person"), of("session"), of("submitted"), of("decrypt")
    print(f"load: {len(persons)} persons, {len(sessions)} sessions, {len(submitted)} verifications submitted, "
          f"{len(decrypts)} decrypts acknowledged; {len(failed)} failed")
    if failed:
        for f in failed[:20]:
            print("  failed:", json.dumps(f), file=sys.stderr)
        raise SystemExit("FAIL: requests failed at the front (or a retried Idempotency-Key gave another result)")
    if len(submitted) < 2 or len(persons) < 10:
        raise SystemExit("FAIL: too little load to check anything")

    # Every submitted verification reaches a verdict, exactly once, each stage recorded once.
    def verdicts():
        for s in submitted:
            st, b = call(front, key, "GET", f"/v1/verification-sessions/{s['id']}")
            if st != 200 or b.get("status") not in ("approved", "declined", "review"):
                return False
        return True
    until("every submitted verification has a verdict", verdicts, 300)
    for s in submitted:
        st, body = call(front, key, "GET", f"/v1/verification-sessions/{s['id']}/events")
        if st != 200:
            raise SystemExit(f"FAIL: the events of {s['id']}: {st}")
        stages, count, event = {}, 0, ""
        for line in body.splitlines() if isinstance(body, str) else []:
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                if event == "verification.stage_completed":
                    stage = json.loads(line[6:])["stage"]
                    stages[stage] = stages.get(stage, 0) + 1
                count += event in VERDICTS
        if count != 1 or set(stages) != STAGES or any(n != 1 for n in stages.values()):
            raise SystemExit(f"FAIL: {s['id']}: {count} verdicts, stages {stages}")

    # Every acknowledged write exists on every node (each node answers only once it caught up).
    for port in nodes:
        base = f"http://127.0.0.1:{port}"
        for p in persons:
            until(f"person {p['id']} on :{port}",
                  lambda: call(base, key, "GET", f"/v1/persons/{p['id']}")[0] == 200, 60)
        for s in sessions:
            until(f"session {s['id']} on :{port}",
                  lambda: call(base, key, "GET", f"/v1/verification-sessions/{s['id']}")[0] == 200, 60)
        # The access log: one entry per acknowledged decrypt, and its chain verifies, on every node.
        for person in {d["person"] for d in decrypts}:
            want = sum(1 for d in decrypts if d["person"] == person)
            def entries():
                st, b = call(base, key, "GET", f"/v1/audit-logs?personId={person}&limit=100")
                return st == 200 and sum(1 for e in b["data"] if e.get("reason") == REASON) >= want
            until(f"the decrypts of {person} in the access log of :{port}", entries, 60)
    # The chain verifies on every node, and every node holds the same number of entries.
    def chains():
        answers = [call(f"http://127.0.0.1:{port}", key, "GET", "/v1/audit-logs/verify") for port in nodes]
        if any(st != 200 or b.get("valid") is not True for st, b in answers):
            raise SystemExit(f"FAIL: GET /v1/audit-logs/verify: {answers}")
        counts = {b["count"] for st, b in answers}
        return counts if len(counts) == 1 else None
    count = until("the same access log on every node", chains, 60).pop()

    # Every verdict's webhook arrived (at least once), and the reference Standard Webhooks package
    # verifies it with the endpoint's secret.
    def hooks():
        st, log = call(f"http://127.0.0.1:{receiver}", key, "GET", "/log")
        if st != 200:
            return None
        seen = {}
        for m in log:
            if m.get("type") in VERDICTS:
                for s in submitted:
                    if s["id"] in json.dumps(m.get("body")):
                        seen.setdefault(s["id"], []).append(m)
        return (seen, log) if len(seen) == len(submitted) else None
    seen, log = until("a verdict webhook for every verification", hooks, 120)
    unverified = [m for ms in seen.values() for m in ms if not m.get("verifiedBy")]
    if unverified:
        raise SystemExit(f"FAIL: verdict webhooks the Standard Webhooks package does not verify: {unverified[:3]}")
    again = sum(len(ms) - 1 for ms in seen.values())
    print(f"load: every write on each of {len(nodes)} nodes; every verdict once; the access log ({count} entries) "
          f"verifies on each; {len(seen)} verdict webhooks verified ({again} delivered again, at least once)")


CURP_CHARS = "0123456789ABCDEFGHIJKLMN\u00d1OPQRSTUVWXYZ"


def curp_with_check_digit(first17):
    """RENAPO's check digit: each character's value times (18 - its position), summed, mod 10."""
    total = sum(CURP_CHARS.index(c) * (18 - i) for i, c in enumerate(first17))
    return first17 + str((10 - total % 10) % 10)


def same_curp(key, rounds, nodes):
    """Each round one new CURP goes to every node at once (a barrier releases the requests
    together): the CURP's claim is decided in the log by its partition's one writer, whichever node
    a request reached, so exactly one create wins and every other gets 409 CURP_CONFLICT."""
    for r in range(rounds):
        curp = curp_with_check_digit(f"PEPJ9{r % 10}0101HDFRRN{r % 10}")
        barrier = threading.Barrier(len(nodes))
        answers = [None] * len(nodes)
        def send(i, port):
            barrier.wait()
            answers[i] = call(f"http://127.0.0.1:{port}", key, "POST", "/v1/persons", {"pii": {"curp": curp}})
        threads = [threading.Thread(target=send, args=(i, port)) for i, port in enumerate(nodes)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        won = [a for a in answers if a[0] == 201]
        lost = [a for a in answers if a[0] == 409 and "CURP_CONFLICT" in json.dumps(a[1])]
        if len(won) != 1 or len(lost) != len(nodes) - 1:
            raise SystemExit(f"FAIL: CURP {curp} sent to {len(nodes)} nodes at once: {answers}")
    print(f"same CURP on {len(nodes)} nodes at once: exactly one 201 in each of {rounds} rounds")


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "drive":
        drive(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif len(sys.argv) >= 7 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
    elif len(sys.argv) >= 5 and sys.argv[1] == "curp":
        same_curp(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
