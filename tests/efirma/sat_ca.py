#!/usr/bin/env python3
"""A SAT-like certification authority for the e.firma tests, made with the openssl command line,
and OpenSSL's own OCSP responder (`openssl ocsp`) behind HTTP.

    sat_ca.py DIR          make the CA and the certificates in DIR (once), then exit
    sat_ca.py DIR serve    the same, then answer OCSP requests: prints "port N"

The certificates are laid out as the SAT's e.firma (FIEL) ones: the subject's RFC in
x500UniqueIdentifier (2.5.4.45), the CURP in serialNumber (2.5.4.5), no organizational unit, key
usage digitalSignature, nonRepudiation, dataEncipherment and keyAgreement, extended key usage
emailProtection and clientAuth. A CSD (the seal certificate of invoices) has an OU (the branch)
and only digitalSignature and nonRepudiation. Each private key is a PKCS#8 DER file encrypted with
the password 12345678a (PBES2, as current SAT keys are; fiel_3des.key is the same key under
3DES, as older ones are; fiel_specimen_3des.key the specimen's key under PBES2 with PBKDF2-HMAC-SHA1
and 3DES, the layout of the SAT's .key files for years).

In DIR: sat_root.pem (what svc is told to trust), ocsp.pem and ocsp.key (the responder, with the
OCSPSigning extended key usage), and <name>.cer / <name>.key / <name>.pem for each of
  fiel          valid, RFC PEPJ800101AB6, CURP PEPJ800101HDFRRN03, "JOSE PEREZ PEREZ"
  fiel_other    valid, another person (RFC GOMA900202CDA, CURP GOMA900202MDFMRN01)
  fiel_specimen valid, the sandbox document's person (docs/verification-pipeline.md#test-inputs:
                RFC GAHJ900315QX7, CURP GAHJ900315MDFRRS05, "MARIA JOSEFINA GARCIA HERNANDEZ")
  fiel_expired  expired yesterday
  fiel_revoked  revoked (in the responder's index)
  csd           a seal certificate (OU "Sucursal Centro") of the same RFC
  csd_no_ou     a seal certificate without its OU (key usage digitalSignature, nonRepudiation only)
  fiel_no_holder a FIEL-like certificate naming no RFC and no CURP
  fiel_ec       a FIEL-like certificate with an EC (P-256) key
  fiel_rsa1024  a FIEL-like certificate with a 1,024-bit RSA key
  foreign       a FIEL-like certificate of another CA (foreign_root.pem), not the SAT's

Lines on stdin (serve): "mode ok" | "mode down" (503 to every request) -> "ok"; "count" -> the
number of OCSP requests answered.
"""
import http.server
import os
import subprocess
import sys
import tempfile
import threading

DIR = sys.argv[1]
PASSWORD = "12345678a"
state = {"mode": "ok", "answered": 0}
lock = threading.Lock()

FIEL_EXT = ("basicConstraints=CA:FALSE\n"
            "keyUsage=critical,digitalSignature,nonRepudiation,dataEncipherment,keyAgreement\n"
            "extendedKeyUsage=emailProtection,clientAuth\n"
            "authorityInfoAccess=OCSP;URI:http://127.0.0.1/ocsp\n")
CSD_EXT = "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n"


def openssl(*args, stdin=None):
    subprocess.run(["openssl", *args], check=True, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def path(name):
    return os.path.join(DIR, name)


def write(name, text):
    with open(path(name), "w", encoding="utf-8") as f:
        f.write(text)


def make_root(name, subject):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path(f"{name}.key"), "-out",
            path(f"{name}.pem"), "-days", "3650", "-subj", subject, "-utf8",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")


def issue(name, subject, ext, ca="sat_root", days="730", start=None, end=None, newkey=("rsa:2048",)):
    key_pem = path(f"{name}.pem.key")
    openssl("req", "-newkey", *newkey, "-nodes", "-keyout", key_pem, "-out", path(f"{name}.csr"), "-subj",
            subject, "-utf8")
    write(f"{name}.ext", ext)
    if start is None:
        openssl("x509", "-req", "-in", path(f"{name}.csr"), "-CA", path(f"{ca}.pem"), "-CAkey", path(f"{ca}.key"),
                "-CAcreateserial", "-out", path(f"{name}.pem"), "-days", days, "-extfile", path(f"{name}.ext"))
    else:  # explicit dates (an expired certificate), through `openssl ca`
        openssl("ca", "-batch", "-config", path("ca.cnf"), "-in", path(f"{name}.csr"), "-out", path(f"{name}.pem"),
                "-startdate", start, "-enddate", end, "-extfile", path(f"{name}.ext"), "-notext", "-utf8")
    openssl("x509", "-in", path(f"{name}.pem"), "-outform", "DER", "-out", path(f"{name}.cer"))
    # The .key as the SAT hands it out: PKCS#8, DER, encrypted.
    openssl("pkcs8", "-topk8", "-in", key_pem, "-outform", "DER", "-out", path(f"{name}.key"), "-passout",
            f"pass:{PASSWORD}", "-v2", "aes-256-cbc")


def index_line(name, status, revoked_at=""):
    out = subprocess.run(["openssl", "x509", "-in", path(f"{name}.pem"), "-noout", "-serial", "-enddate", "-subject",
                          "-nameopt", "compat"], check=True, capture_output=True, text=True).stdout.splitlines()
    serial = out[0].split("=", 1)[1]
    end = out[1].split("=", 1)[1]
    # index.txt wants the end date as YYMMDDHHMMSSZ.
    import datetime
    t = datetime.datetime.strptime(end, "%b %d %H:%M:%S %Y %Z")
    subject = out[2].split("=", 1)[1].strip()
    return f"{status}\t{t.strftime('%y%m%d%H%M%SZ')}\t{revoked_at}\t{serial}\tunknown\t{subject}\n"


def make_ca():
    if os.path.exists(path("done")):
        return
    os.makedirs(DIR, exist_ok=True)
    make_root("sat_root", "/CN=AC DE PRUEBAS DEL SAT/O=Servicio de Administración Tributaria/C=MX")
    make_root("foreign_root", "/CN=Otra Autoridad Certificadora/O=Ajena/C=MX")
    write("index.txt", "")
    write("serial", "1000\n")
    write("ca.cnf", "[ ca ]\ndefault_ca = sat\n[ sat ]\n"
                    f"dir = {DIR}\ndatabase = {DIR}/index.ca.txt\nnew_certs_dir = {DIR}\n"
                    f"certificate = {DIR}/sat_root.pem\nprivate_key = {DIR}/sat_root.key\nserial = {DIR}/serial\n"
                    "default_md = sha256\npolicy = any\nunique_subject = no\ncopy_extensions = none\n"
                    "[ any ]\ncommonName = supplied\nx500UniqueIdentifier = optional\nserialNumber = optional\n"
                    "organizationName = optional\norganizationalUnitName = optional\nemailAddress = optional\n"
                    "countryName = optional\nname = optional\n")
    write("index.ca.txt", "")
    person = "/CN=JOSE PEREZ PEREZ/name=JOSE PEREZ PEREZ/O=JOSE PEREZ PEREZ/C=MX" \
             "/x500UniqueIdentifier=PEPJ800101AB6/serialNumber=PEPJ800101HDFRRN03"
    issue("fiel", person, FIEL_EXT)
    issue("fiel_other", "/CN=ANA GOMEZ MARTINEZ/name=ANA GOMEZ MARTINEZ/O=ANA GOMEZ MARTINEZ/C=MX"
                        "/x500UniqueIdentifier=GOMA900202CDA/serialNumber=GOMA900202MDFMRN01", FIEL_EXT)
    issue("fiel_specimen", "/CN=MARIA JOSEFINA GARCIA HERNANDEZ/name=MARIA JOSEFINA GARCIA HERNANDEZ"
                           "/O=MARIA JOSEFINA GARCIA HERNANDEZ/C=MX"
                           "/x500UniqueIdentifier=GAHJ900315QX7/serialNumber=GAHJ900315MDFRRS05", FIEL_EXT)
    issue("fiel_revoked", person, FIEL_EXT)
    issue("csd", person + "/OU=Sucursal Centro", CSD_EXT)
    # What is no e.firma although the SAT-like root signed it (issue 68): a CSD without its OU, a
    # certificate naming no RFC and no CURP, an EC key, a short RSA key.
    issue("csd_no_ou", person, CSD_EXT)
    issue("fiel_no_holder", "/CN=SIN IDENTIFICADORES/O=SIN IDENTIFICADORES/C=MX", FIEL_EXT)
    issue("fiel_ec", person, FIEL_EXT, newkey=("ec", "-pkeyopt", "ec_paramgen_curve:P-256"))
    issue("fiel_rsa1024", person, FIEL_EXT, newkey=("rsa:1024",))
    issue("foreign", person, FIEL_EXT, ca="foreign_root")
    issue("fiel_expired", person, FIEL_EXT, start="20240101000000Z", end="20250101000000Z")
    # The same FIEL key under 3DES (older SAT keys).
    openssl("pkcs8", "-topk8", "-in", path("fiel.pem.key"), "-outform", "DER", "-out", path("fiel_3des.key"),
            "-passout", f"pass:{PASSWORD}", "-v1", "PBE-SHA1-3DES")
    # The specimen's key as SAT .key files have long been made: PBES2, PBKDF2 with HMAC-SHA1, 3DES.
    openssl("pkcs8", "-topk8", "-in", path("fiel_specimen.pem.key"), "-outform", "DER", "-out",
            path("fiel_specimen_3des.key"), "-passout", f"pass:{PASSWORD}", "-v2", "des3", "-v2prf", "hmacWithSHA1")
    # The expired FIEL's key the same way (the widget's refusal test signs with it).
    openssl("pkcs8", "-topk8", "-in", path("fiel_expired.pem.key"), "-outform", "DER", "-out",
            path("fiel_expired_3des.key"), "-passout", f"pass:{PASSWORD}", "-v2", "des3", "-v2prf", "hmacWithSHA1")
    # The OCSP responder: delegated by the CA, with the OCSPSigning extended key usage.
    issue("ocsp", "/CN=OCSP DE PRUEBAS DEL SAT/O=Servicio de Administración Tributaria/C=MX",
          "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,OCSPSigning\n")
    os.rename(path("ocsp.pem.key"), path("ocsp.key.pem"))
    lines = "".join(index_line(n, "V") for n in ["fiel", "fiel_other", "fiel_specimen", "csd", "fiel_expired"])
    import datetime
    revoked_at = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=1)).strftime("%y%m%d%H%M%SZ")
    lines += index_line("fiel_revoked", "R", f"{revoked_at},keyCompromise")
    write("index.txt", lines)
    write("index.txt.attr", "unique_subject = no\n")
    write("done", "")


def answer(request):
    """OpenSSL's OCSP answer to a DER request, signed by the delegated responder."""
    with tempfile.TemporaryDirectory() as t:
        open(f"{t}/q.der", "wb").write(request)
        r = subprocess.run(["openssl", "ocsp", "-index", path("index.txt"), "-CA", path("sat_root.pem"),
                            "-rsigner", path("ocsp.pem"), "-rkey", path("ocsp.key.pem"), "-reqin", f"{t}/q.der",
                            "-respout", f"{t}/r.der", "-ndays", "1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode != 0:
            return None, r.stderr
        return open(f"{t}/r.der", "rb").read(), b""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    # The headers and the body go out as two writes: without TCP_NODELAY the body waits for the
    # client's delayed ACK (40 ms on Linux) on a kept connection, which a real responder does not add.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        with lock:
            mode = state["mode"]
        if mode == "down":
            return self.send(503, "text/plain", b"down\n")
        if self.headers.get("content-type") != "application/ocsp-request":
            return self.send(415, "text/plain", b"application/ocsp-request only\n")
        with lock:
            reply, err = answer(body)
            state["answered"] += 1
        if reply is None:
            return self.send(400, "text/plain", err)
        self.send(200, "application/ocsp-response", reply)

    def send(self, status, content_type, body):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    make_ca()
    if sys.argv[2:] != ["serve"]:
        return
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"port {server.server_address[1]}", flush=True)
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["mode"] and len(words) == 2:
            with lock:
                state["mode"] = words[1]
            print("ok", flush=True)
        elif words == ["count"]:
            with lock:
                print(state["answered"], flush=True)


if __name__ == "__main__":
    main()
