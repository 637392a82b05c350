#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) from the test fixtures and
the docs' samples. Deterministic; run again after a format gains a case. The corpora are kept in
the repository with every crash input found (named crash-*), so each run starts from them."""
import base64, hashlib, hmac, json, os, pathlib, subprocess, sys

root = pathlib.Path(__file__).resolve().parents[2]
corpus = root / "tests/fuzz/corpus"

def put(target, name, data):
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())

def mrz_digit(s):
    w = [7, 3, 1]
    v = lambda c: 0 if c == "<" else int(c) if c.isdigit() else ord(c) - 55
    return str(sum(v(c) * w[i % 3] for i, c in enumerate(s)) % 10)

# ids, query strings, cursors
put("fuzz_ids", "id", "vrf_0123456789abcdef0123456789abcdef")
put("fuzz_ids", "query", "limit=20&startingAfter=eyJrIjoiMSJ9.abc&status=approved&includeTotal=true")
put("fuzz_ids", "b64", base64.b64encode(b"svc cursor").decode())
# CURP, RFC
for i, s in enumerate(["PEPJ800101HDFRRN03", "GAHJ900315MDFRRS04", "pepj800101hdfrrn03", "PEPJ800101AB1",
                       "OTR150320AB1", "XAXX010101000", "ÑAÑA800101HDFRRN03"]):
    put("fuzz_mx_ids", f"id{i}", s)
# JSON bodies
for i, b in enumerate([{"channel": "api", "policy": {"testOutcome": "approved"}},
                       {"name": "Tienda", "url": "https://shop.example/hook", "accepted": True, "limit": 20,
                        "createdAt": "2026-12-02T10:00:00Z", "id": "vrf_0123456789abcdef0123456789abcdef"},
                       {"pii": {"curp": "PEPJ800101HDFRRN03", "fullName": "José Pérez Núñez"}}]):
    put("fuzz_json_body", f"body{i}", json.dumps(b, ensure_ascii=False))
# multipart: content type line, then the body
jpeg = (root / "docs/samples/selfie.jpg").read_bytes()[:2048]
body = (b"--XyZ\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nselfie\r\n"
        b"--XyZ\r\nContent-Disposition: form-data; name=\"captureSource\"\r\n\r\ncamera\r\n"
        b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"s.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
        + jpeg + b"\r\n--XyZ--\r\n")
put("fuzz_multipart", "upload", b"multipart/form-data; boundary=XyZ\n" + body)
put("fuzz_multipart", "quoted", b"multipart/form-data; boundary=\"a b\"\n--a b\r\nContent-Disposition: form-data; name=x\r\n\r\n1\r\n--a b--\r\n")
# captureFacts
facts = {"source": "camera", "device": {"label": "FaceTime HD Camera"},
         "settings": {"width": 1280, "height": 720, "frameRate": 30, "facingMode": "user"},
         "capabilities": {"width": {"min": 1, "max": 1920}, "height": {"min": 1, "max": 1080}, "frameRate": {"min": 1, "max": 30}},
         "constraints": {"width": 1280, "facingMode": "user"}, "recorder": {"api": "MediaRecorder", "mimeType": "video/webm;codecs=vp8"},
         "frameIntervalsMs": [33.3, 33.4, 33.2] * 12}
put("fuzz_capture_facts", "widget", json.dumps(facts))
put("fuzz_capture_facts", "file", json.dumps({"source": "file"}))
# containers: the browser's recording and FFmpeg's
put("fuzz_containers", "chromium.webm", (root / "tests/fixtures/chromium-mediarecorder-vp8.webm").read_bytes()[:16384])
put("fuzz_containers", "sample.mp4", (root / "docs/samples/video.mp4").read_bytes()[:16384])
# MRZ (TD1, as the back of an INE), the hand-built zone of the document checks' test
l1 = list("IDMEX1234567897<<<<<<<<<<<<<<<")
l1[14] = mrz_digit("".join(l1[5:14]))
l2 = list("9003155F3112314MEX<<<<<<<<<<<")
l2[6] = mrz_digit("".join(l2[0:6]))
l2[14] = mrz_digit("".join(l2[8:14]))
l2 = "".join(l2)[:29]
l1 = "".join(l1)
l2 += mrz_digit(l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29])
put("fuzz_mrz", "td1", "\n".join([l1, l2, "GARCIA<HERNANDEZ<<MARIA<JOSEFI"]))
put("fuzz_mrz", "td3", "P<MEXGARCIA<HERNANDEZ<<MARIA<JOSEFINA<<<<<<<<<\nG123456784MEX9003155F3112314<<<<<<<<<<<<<<06")
# signed notes and checkpoints (the tlog-checkpoint form)
put("fuzz_signed_note", "checkpoint", "audit.example.mx/log\n42\n" + base64.b64encode(b"\x01" * 32).decode() + "\n")
put("fuzz_signed_note", "note", "audit.example.mx/log\n42\n" + base64.b64encode(b"\x01" * 32).decode()
    + "\n\n\u2014 audit.example.mx " + base64.b64encode(b"\x00\x00\x00\x01" + b"\x02" * 64).decode() + "\n")
# a console token (HS256)
def b64u(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
head = b64u(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
claims = b64u(json.dumps({"sub": "usr_0123456789abcdef0123456789abcdef", "exp": 1893456000}).encode())
sig = b64u(hmac.new(b"a-reviewer-session-key-of-32-bytes!", f"{head}.{claims}".encode(), hashlib.sha256).digest())
put("fuzz_jwt", "token", f"{head}.{claims}.{sig}")
# lists: the first byte picks the format (ListFormats' order)
lists = root / "docs/samples/lists"
for i, name in enumerate(["sdn.csv", "un_consolidated.xml", "targets.simple.csv", "entities.ftm.json", "sat_69b.csv",
                          "sat_69_firmes.csv"]):
    put("fuzz_lists", name, bytes([i]) + (lists / name).read_bytes()[:32768])
# a backup's manifest (eventstore/backup.h): the digest over the RFC 8785 form (sorted keys, no
# spaces: the same for these plain values), the HMAC under the target's key (32 x "k")
def canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
files = [{"path": "db/CURRENT", "size": 16, "sha256": hashlib.sha256(b"MANIFEST-000005\n").hexdigest()},
         {"path": "db/000009.sst", "size": 1024, "sha256": "ab" * 32},
         {"path": "media/3f/" + "3f" * 32, "size": 262144, "sha256": "3f" * 32}]
manifest = {"format": "svc-backup/1",
            "about": {"createdAt": "2026-12-02T14:00:00Z", "logBackend": "embedded", "partitions": 4,
                      "logEndOffsetsBefore": [12, 40, 7, 0], "blobStore": "local:/var/lib/svc/media"},
            "totals": {"files": 3, "bytes": 263184, "dbFiles": 2, "blobs": 1, "blobBytes": 262144,
                       "blobsRemovedDuringBackup": 0},
            "files": files}
digest = hashlib.sha256(canon(manifest).encode()).hexdigest()
manifest["digest"] = digest
manifest["mac"] = base64.b64encode(hmac.new(b"k" * 32, digest.encode(), hashlib.sha256).digest()).decode()
put("fuzz_backup_manifest", "manifest", json.dumps(manifest))
put("fuzz_backup_manifest", "unfinished", json.dumps({"format": "svc-backup/1", "files": []}))
# an access-log export: the header, then entries chained as the log chains them
origin = "svc/audit/ten_0123456789abcdef0123456789abcdef/test"
lines = [json.dumps({"format": "svc-audit-export/2", "origin": origin,
                     "verifierKey": origin + "+01020304+" + base64.b64encode(b"\x01" + b"\x02" * 32).decode(),
                     "checkpoint": origin + "\n2\n" + base64.b64encode(b"\x03" * 32).decode() + "\n\n\u2014 " + origin + " AQIDBA==\n",
                     "checkpoints": [{"treeSize": 1, "rootHash": "00" * 32, "checkpoint": "x"}]})]
prev = bytes(32)
for i in (1, 2):
    entry = {"id": i, "object": "audit_log_entry", "action": "person.decrypt", "actorType": "api_key",
             "actorId": "key_0123456789abcdef0123456789abcdef", "personId": "per_0123456789abcdef0123456789abcdef",
             "fields": ["curp"], "purpose": "identity_verification", "createdAt": f"2026-12-02T14:00:0{i}Z"}
    h = hashlib.sha256(prev + canon(entry).encode()).digest()
    entry["prevHash"], entry["hash"] = prev.hex(), h.hex()
    lines.append(canon(entry))
    prev = h
put("fuzz_audit_export", "export", "\n".join(lines) + "\n")
# image headers: the first byte picks the declared type (jpeg, png, webp, webm, mp4)
put("fuzz_image_headers", "jpeg", b"\x00" + (root / "docs/samples/selfie.jpg").read_bytes()[:4096])
ihdr = b"IHDR" + (1280).to_bytes(4, "big") + (800).to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
put("fuzz_image_headers", "png", b"\x01" + b"\x89PNG\r\n\x1a\n" + (13).to_bytes(4, "big") + ihdr + b"\x00" * 4)
for name, chunk, body in [("webp-vp8", b"VP8 ", b"\x00" * 10 + (1280).to_bytes(2, "little") + (800).to_bytes(2, "little")),
                          ("webp-vp8l", b"VP8L", b"\x2f" + bytes([0xff, 0x04, 0x20, 0x00]) + b"\x00" * 9),
                          ("webp-vp8x", b"VP8X", b"\x00" * 4 + (1279).to_bytes(3, "little") + (799).to_bytes(3, "little"))]:
    put("fuzz_image_headers", name, b"\x02" + b"RIFF" + (len(body) + 12).to_bytes(4, "little") + b"WEBP" + chunk
        + len(body).to_bytes(4, "little") + body + b"\x00" * 8)
put("fuzz_image_headers", "mp4", b"\x04" + (root / "docs/samples/video.mp4").read_bytes()[:256])
# e.firma certificates: a FIEL-like one made once with openssl (random keys: kept, not remade)
efirma = corpus / "fuzz_efirma"
if not (efirma / "fiel.cer").exists():
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        subj = "/CN=JOSE PEREZ NUNEZ/x500UniqueIdentifier=PEPJ800101AB1 / PEPJ800101AB1/serialNumber=PEPJ800101HDFRRN03"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-keyout", f"{t}/k.pem", "-out", f"{t}/c.pem", "-days", "1460", "-subj", subj,
                        "-addext", "keyUsage=critical,digitalSignature,nonRepudiation"],
                       check=True, capture_output=True)
        pem = pathlib.Path(f"{t}/c.pem").read_bytes()
        der = subprocess.run(["openssl", "x509", "-in", f"{t}/c.pem", "-outform", "DER"], check=True,
                             capture_output=True).stdout
    put("fuzz_efirma", "fiel.cer", der)
    put("fuzz_efirma", "fiel.pem", pem)

# bulk export dumps: the odd first byte seals what follows (header line, chunks split by 0x1e)
dump_header = json.dumps({"format": "svc-export-bulk/1", "job": "exb_0123456789abcdef0123456789abcdef",
                          "tenant": "ten_0123456789abcdef0123456789abcdef", "environment": "live", "keyId": "k1"})
records = "\n".join(json.dumps({"personId": "per_0123456789abcdef0123456789abcdef", "fields": {"curp": "PEPJ800101HDFRRN03",
                     "email": "a@example.mx"}}) for _ in range(3)) + "\n"
put("fuzz_export_dump", "sealed", b"\x01" + (dump_header + "\n" + records + "\x1e" + records).encode())
put("fuzz_export_dump", "sealed-cut", b"\x05" + (dump_header + "\n" + records).encode())
put("fuzz_export_dump", "raw", b"\x00SVCEXB1\n" + len(dump_header).to_bytes(4, "big") + dump_header.encode()
    + (48).to_bytes(4, "big") + bytes(48) + bytes(24))
# fuzz_api: one request per route of the OpenAPI document (`svc openapi`, from $SVC_BIN or the
# sanitizer build), its body made from the route's schema; ids of the harness's own objects as
# {person}, {session}, ... (tests/fuzz/api/fuzz_api.cc), other ids well formed but unknown.
def svc_openapi():
    for b in [os.environ.get("SVC_BIN", ""), str(root / "build-asan/api/svc"), str(root / "build-release/api/svc")]:
        if b and os.path.exists(b):
            return json.loads(subprocess.run([b, "openapi"], check=True, capture_output=True).stdout)
    return None

PLACEHOLDERS = {"session_id": "{session}", "person_id": "{person}", "company_id": "{company}",
                "endpoint_id": "{endpoint}"}
ID_PREFIX = {"delivery_id": "whd", "token_id": "ctok", "export_id": "pxb", "consent_id": "cns", "asset_id": "med",
             "grant_id": "grt", "consolidation_id": "csl", "arco_request_id": "arc", "job_id": "imp",
             "case_id": "cas", "media_id": "med", "member_id": "cmm", "node_id": "ubo", "hit_id": "hit",
             "token": "mlk"}
JOB_PREFIX = {"/v1/persons/export-bulk": "exb"}  # a job of the bulk export, not of an import
# id members of bodies by their name's prefix (core/ids.cc)
ID_MEMBER_PREFIX = {"arcoRequestId": "arc", "flowId": "flw", "caseId": "cas", "assetId": "med", "mediaId": "med",
                    "consentId": "cns", "grantId": "grt", "userId": "usr", "assigneeId": "usr", "memberId": "cmm",
                    "parentId": "ubo", "nodeId": "ubo", "hitId": "hit", "screeningId": "scr", "targetPersonId": "per",
                    "duplicatePersonId": "per", "challengeId": "efc", "trackingId": "trk", "deliveryId": "whd",
                    "exportId": "pxb", "livenessChallengeId": "lch", "ownerId": "ubo"}
STRING_BY_NAME = {"curp": "PEPJ800101HDFRRN03", "rfc": "PEPJ800101AB1", "email": "a@example.mx",
                  "phone": "+525512345678", "fullName": "José Pérez Núñez", "legalName": "Tienda Uno, S.A. de C.V.",
                  "url": "http://127.0.0.1:9/hook", "callbackUrl": "http://127.0.0.1:9/cb",
                  "personId": "{person}", "sessionId": "{session}", "companyId": "{company}",
                  "applicationId": "{application}", "externalRef": "client-7", "purpose": "identity_verification",
                  "reason": "support call 7", "dateOfBirth": "1980-01-01", "birthDate": "1980-01-01", "note": "looked"}

def example(schema, doc, name="", depth=0):
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].split("/")[-1]]
    for k in ("oneOf", "anyOf", "allOf"):
        if k in schema and schema[k]:
            return example(schema[k][0], doc, name, depth)
    if "enum" in schema:
        return schema["enum"][0]
    t = schema.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0] if [x for x in t if x != "null"] else "null"
    if t == "object" or "properties" in schema:
        if depth > 4:
            return {}
        return {k: example(v, doc, k, depth + 1) for k, v in schema.get("properties", {}).items()}
    if t == "array":
        return [example(schema.get("items", {}), doc, name, depth + 1)] if depth < 5 else []
    if t == "integer":
        return schema.get("minimum", 1)
    if t == "number":
        return 0.5
    if t == "boolean":
        return True
    if t == "null":
        return None
    if name in STRING_BY_NAME:
        return STRING_BY_NAME[name]
    if name in ID_MEMBER_PREFIX or name.endswith("Id"):
        return ID_MEMBER_PREFIX.get(name, "per") + "_" + "0123456789abcdef" * 2
    fmt = schema.get("format", "")
    if fmt == "date-time":
        return "2026-12-02T10:00:00Z"
    if fmt == "date":
        return "1980-01-01"
    if fmt in ("uri", "url"):
        return "http://127.0.0.1:9/x"
    if fmt == "email":
        return "a@example.mx"
    return "x"

doc = svc_openapi()
if doc is None:
    print("fuzz_api seeds: no svc binary (build one, or set SVC_BIN): left as they are", file=sys.stderr)
else:
    import re
    for path, ops in sorted(doc["paths"].items()):
        for method, op in sorted(ops.items()):
            if method not in ("get", "post", "patch", "put", "delete"):
                continue
            def one(m):
                n = m.group(1)
                if n in PLACEHOLDERS:
                    return PLACEHOLDERS[n]
                if n == "portfolio_id":
                    return "clients"
                prefix = JOB_PREFIX.get(path.split("/{")[0], ID_PREFIX.get(n, "x")) if n == "job_id" else ID_PREFIX.get(n, "x")
                return prefix + "_" + "0123456789abcdef" * 2
            target = re.sub(r"\{(\w+)\}", one, path)
            headers, body = [], ""
            if method in ("post", "patch"):
                headers.append("Idempotency-Key: seed-" + (method + path).replace("/", "-"))
            rb = op.get("requestBody", {}).get("content", {})
            if "application/json" in rb:
                body = json.dumps(example(rb["application/json"]["schema"], doc), ensure_ascii=False)
                headers.append("Content-Type: application/json")
            elif "multipart/form-data" in rb:
                boundary = "XyZ"
                body = ("--XyZ\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nselfie\r\n"
                        "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"s.jpg\"\r\n"
                        "Content-Type: image/jpeg\r\n\r\n")
                headers.append("Content-Type: multipart/form-data; boundary=XyZ")
            name = (method + path).replace("/", "_").replace("{", "").replace("}", "")
            head = f"{method.upper()} {target}\n" + "".join(h + "\n" for h in headers) + "\n"
            data = head.encode() + body.encode()
            if "multipart/form-data" in rb:
                data += (root / "docs/samples/selfie.jpg").read_bytes() + b"\r\n--XyZ--\r\n"
            put("fuzz_api", name, data)
    # the headers every versioned write reads, and queries with cursors
    put("fuzz_api", "headers-idempotency", "POST /v1/persons\nIdempotency-Key: order-77\nService-Version: 2026-01-01\n"
        "Content-Type: application/json\n\n" + json.dumps({"pii": {"curp": "PEPJ800101HDFRRN03"}, "externalRef": "c-1"}))
    put("fuzz_api", "headers-version", "GET /v1/persons/{person}\nService-Version: 1999-01-01\n\n")
    put("fuzz_api", "list-cursor", "GET /v1/persons?limit=2&startingAfter=eyJrIjoiMSJ9.abc&includeTotal=true\n\n")
    # the pages' routes outside /v1: the console's sign-in and its token on the review routes,
    # the hosted flow's init and frame, a media link
    put("fuzz_api", "console-sign-in", "POST /console/api/sign-in\nAuthorization:\nContent-Type: application/json\n\n"
        + json.dumps({"secret": "{reviewer}", "environment": "test"}))
    put("fuzz_api", "console-queue", "GET /v1/review/queue?limit=5\nAuthorization: Bearer {rtoken}\n\n")
    put("fuzz_api", "console-events", "GET /console/api/events\nAuthorization: Bearer {rtoken}\n\n")
    put("fuzz_api", "hosted-init", "POST /embed/v1/hosted/init\nAuthorization:\nContent-Type: application/json\n\n"
        + json.dumps({"linkToken": "x" * 40}))
    put("fuzz_api", "embed-frame", "GET /embed/v1/frame/{session}\nAuthorization:\n\n")
    put("fuzz_api", "media-link-open", "GET /v/mlk_0123456789abcdef0123456789abcdef.abc\nAuthorization:\n\n")
    put("fuzz_api", "import-lines", "POST /v1/persons/import\nContent-Type: application/x-ndjson\n\n"
        + json.dumps({"pii": {"fullName": "A B", "curp": "GAHJ900315MDFRRS04"}, "externalRef": "r1"}) + "\n"
        + json.dumps({"pii": {"email": "b@example.mx"}, "externalRef": "r2"}) + "\n")

print("seed corpora written under", corpus)
