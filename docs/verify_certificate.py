#!/usr/bin/env python3
"""Checks a verification certificate without the service: Python's standard library only.

    python3 verify_certificate.py certificate.json --public-key <base64 Ed25519 public key>

The public key is the tenant and environment's (GET /v1/certificate-keys, or
`svc certificate public-key --tenant ... --env ...`). What is checked:

1. the content: the certificate without contentHash, signature, signatureEd25519,
   signingKeyId and timestamps, in RFC 8785 canonical form; its SHA-256 must be contentHash;
2. signatureEd25519: an Ed25519 signature (RFC 8032) of those same canonical bytes;
3. signingKeyId must name the key given ("ed25519:" + the first 16 hex of SHA-256(key)).

The HMAC `signature` needs the service's secret key and is not checked here (say so).
Exit status: 0 valid, 1 not valid, 2 usage or unreadable input. Prints one JSON object.
"""
import base64
import hashlib
import json
import math
import sys

# ---- RFC 8785 (JSON Canonicalization Scheme) ----


def _number(x):
    """ECMAScript Number.prototype.toString, which RFC 8785 prescribes for numbers."""
    if isinstance(x, bool):
        raise ValueError("bool is not a number")
    if isinstance(x, int):
        x = float(x) if abs(x) >= 2**53 else x
        if isinstance(x, int):
            return str(x)
    if math.isnan(x) or math.isinf(x):
        raise ValueError("NaN and infinities have no JSON form")
    if x == 0:
        return "0"
    if x < 0:
        return "-" + _number(-x)
    # The shortest digits that round-trip (Python's repr gives them) and their exponent.
    mantissa, _, exp = repr(x).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits, exp10 = (whole + frac).lstrip("0"), (int(exp) if exp else 0) - len(frac)
    while digits.endswith("0"):
        digits, exp10 = digits[:-1], exp10 + 1
    k = len(digits)
    n = k + exp10  # the value is 0.<digits> * 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return head + "e" + ("+" if e > 0 else "-") + str(abs(e))


def canonical(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, str):
        # json.dumps escapes exactly what RFC 8785 escapes when ensure_ascii is off.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))  # by UTF-16 code units
        return "{" + ",".join(canonical(k) + ":" + canonical(value[k]) for k in keys) + "}"
    raise ValueError("not a JSON value: %r" % (value,))


# ---- Ed25519 verification (RFC 8032, section 5.1.7) ----

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _add(a, b):  # extended coordinates (X, Y, Z, T)
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(s, point):
    acc = (0, 1, 1, 0)  # the neutral element
    while s > 0:
        if s & 1:
            acc = _add(acc, point)
        point = _add(point, point)
        s >>= 1
    return acc


def _decode(b):
    if len(b) != 32:
        return None
    y = int.from_bytes(b, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= P:
        return None
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    if v * x * x % P != u:
        x = x * SQRT_M1 % P
        if v * x * x % P != u:
            return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def _encode(point):
    x, y, z, _ = point
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


BASE = _decode((4 * pow(5, P - 2, P) % P).to_bytes(32, "little"))


def ed25519_verify(public_key, message, signature):
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a, r = _decode(public_key), _decode(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % L
    return _encode(_mul(s, BASE)) == _encode(_add(r, _mul(h, a)))


# ---- the certificate ----

UNSIGNED = ("contentHash", "signature", "signatureEd25519", "signingKeyId", "timestamps")


def verify(document, public_key):
    content = {k: v for k, v in document.items() if k not in UNSIGNED}
    signed = canonical(content).encode("utf-8")
    hash_ok = hashlib.sha256(signed).hexdigest() == document.get("contentHash")
    key_id = "ed25519:" + hashlib.sha256(public_key).hexdigest()[:16]
    try:
        sig = bytes.fromhex(document.get("signatureEd25519", ""))
    except ValueError:
        sig = b""
    sig_ok = document.get("signingKeyId") == key_id and ed25519_verify(public_key, signed, sig)
    return {
        "valid": hash_ok and sig_ok,
        "contentHashValid": hash_ok,
        "ed25519SignatureValid": sig_ok,
        "hmacSignatureValid": None,
        "notChecked": ["HMAC signature: needs the service's secret key"],
    }


def main(argv):
    if len(argv) != 4 or argv[2] != "--public-key":
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        with open(argv[1], "rb") as f:
            document = json.loads(f.read().decode("utf-8"))
        public_key = base64.b64decode(argv[3], validate=True)
    except (OSError, ValueError) as e:
        print("verify_certificate: %s" % e, file=sys.stderr)
        return 2
    if not isinstance(document, dict) or len(public_key) != 32:
        print("verify_certificate: need a JSON object and a 32-byte key", file=sys.stderr)
        return 2
    result = verify(document, public_key)
    print(json.dumps(result, indent=2))
    return 0 if result["valid"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
