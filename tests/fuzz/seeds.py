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
print("seed corpora written under", corpus)
