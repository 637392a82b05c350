#!/usr/bin/env python3
"""The tests' time-stamping authority: OpenSSL's own TSA (`openssl ts -reply`) behind HTTP.

    server.py DIR

Makes a root CA and a TSA certificate under it in DIR (root.pem is what svc is told to trust;
the TSA's has the critical timeStamping extended key usage), listens on 127.0.0.1 at a free
port, prints "port N", and answers every POST of an RFC 3161 request
(application/timestamp-query) with OpenSSL's reply (application/timestamp-reply). Default
policy 1.2.3.4.1; 1.2.3.4.5 is granted when asked for.

Lines on stdin change how it answers, each acknowledged with "ok":
  mode ok              answer as a TSA does
  mode down            503 to every request (a TSA that is down)
  mode wrong-imprint   answer for a digest other than the one asked for
  mode wrong-nonce     answer with a nonce other than the request's
  auth USER:PASSWORD   from now on, 401 without these HTTP Basic credentials
  count                print how many tokens it granted
Also usable by hand as a development TSA (docs/audit.md#trusted-timestamps).
"""
import base64
import http.server
import os
import subprocess
import sys
import tempfile
import threading

DIR = sys.argv[1]
state = {"mode": "ok", "granted": 0, "auth": None}
lock = threading.Lock()


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def write(name, text):
    with open(os.path.join(DIR, name), "w") as f:
        f.write(text)


def make_ca():
    d = DIR
    if os.path.exists(os.path.join(d, "tsa.cnf")):
        return
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            f"{d}/root.key", "-out", f"{d}/root.pem", "-days", "30", "-subj", "/CN=Test TSA Root")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{d}/tsa.key",
            "-out", f"{d}/tsa.csr", "-subj", "/O=Sello de Tiempo de Prueba/CN=Test TSA")
    write("ext.cnf", "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                     "extendedKeyUsage=critical,timeStamping\n")
    openssl("x509", "-req", "-in", f"{d}/tsa.csr", "-CA", f"{d}/root.pem", "-CAkey", f"{d}/root.key",
            "-CAcreateserial", "-out", f"{d}/tsa.pem", "-days", "30", "-extfile", f"{d}/ext.cnf")
    write("serial", "01\n")
    write("tsa.cnf", "[ tsa ]\ndefault_tsa = tsa_config1\n[ tsa_config1 ]\n"
                     f"serial = {d}/serial\ncrypto_device = builtin\n"
                     f"signer_cert = {d}/tsa.pem\ncerts = {d}/tsa.pem\n"
                     f"signer_key = {d}/tsa.key\nsigner_digest = sha256\n"
                     "default_policy = 1.2.3.4.1\nother_policies = 1.2.3.4.5\ndigests = sha256\n"
                     "accuracy = secs:1\nclock_precision_digits = 0\nordering = no\ntsa_name = yes\n"
                     "ess_cert_id_chain = no\ness_cert_id_alg = sha256\n")


SHA256_IMPRINT = bytes.fromhex("0609608648016503040201")  # the SHA-256 OID, as DER


def altered(query, what):
    """The request with one byte of its imprint or of its nonce changed (OpenSSL then answers for it)."""
    q = bytearray(query)
    at = q.find(SHA256_IMPRINT)
    digest = q.find(b"\x04\x20", at) + 2  # the imprint's OCTET STRING of 32 bytes
    if what == "imprint":
        q[digest] ^= 0xFF
        return bytes(q)
    # After the imprint: an optional policy (OID), then the nonce (INTEGER).
    i = digest + 32
    if q[i] == 0x06:
        i += 2 + q[i + 1]
    assert q[i] == 0x02, "no nonce in the request"
    length = q[i + 1]
    q[i + 2 + length - 1] ^= 0x01
    return bytes(q)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    # As tests/efirma/sat_ca.py: the body must not wait for the client's delayed ACK.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        with lock:
            mode, auth = state["mode"], state["auth"]
        if auth is not None and self.headers.get("authorization") != "Basic " + base64.b64encode(auth.encode()).decode():
            return self.answer(401, "text/plain", b"credentials required\n")
        if mode == "down":
            return self.answer(503, "text/plain", b"down\n")
        if self.headers.get("content-type") != "application/timestamp-query":
            return self.answer(415, "text/plain", b"application/timestamp-query only\n")
        if mode == "wrong-imprint":
            body = altered(body, "imprint")
        elif mode == "wrong-nonce":
            body = altered(body, "nonce")
        with tempfile.TemporaryDirectory() as t, lock:
            open(f"{t}/q.der", "wb").write(body)
            r = subprocess.run(["openssl", "ts", "-reply", "-config", f"{DIR}/tsa.cnf", "-queryfile", f"{t}/q.der",
                                "-out", f"{t}/r.der"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode != 0:
                return self.answer(400, "text/plain", r.stderr)
            reply = open(f"{t}/r.der", "rb").read()
            state["granted"] += 1
        self.answer(200, "application/timestamp-reply", reply)

    def answer(self, status, content_type, body):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    make_ca()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"port {server.server_address[1]}", flush=True)
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["mode"] and len(words) == 2:
            with lock:
                state["mode"] = words[1]
            print("ok", flush=True)
        elif words[:1] == ["auth"] and len(words) == 2:
            with lock:
                state["auth"] = words[1]
            print("ok", flush=True)
        elif words == ["count"]:
            with lock:
                print(state["granted"], flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
