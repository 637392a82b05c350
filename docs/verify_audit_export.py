#!/usr/bin/env python3
"""Checks an export of the access log without the service: Python's standard library only.

    python3 verify_audit_export.py export.json [--verifier-key KEY]

The export is what `svc audit export` writes (docs/audit.md). KEY is the C2SP verifier key of the
tenant and environment (GET /v1/audit-logs/verify/checkpoint-key), kept apart from the export; without
it the export's own key is used, and the output says so. What is checked, as `svc audit verify` does:

1. the hash chain: entry n has id n, prevHash = the previous entry's hash (32 zero bytes first),
   hash = SHA-256(prevHash || RFC 8785 form of the entry without prevHash and hash);
2. the Merkle tree (RFC 9162) of the entries: leaf = SHA-256(0x00 || those same bytes),
   node = SHA-256(0x01 || left || right);
3. the checkpoint: a C2SP signed note whose Ed25519 signature verifies with the key, and whose
   body (origin, size, base64 root) is the export's origin and the tree of exactly its entries.

Needs verify_certificate.py (same folder) for RFC 8785 and Ed25519.
Exit status: 0 valid, 1 not valid, 2 usage or unreadable input. Prints one JSON object.
"""
import base64
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_certificate import canonical, ed25519_verify  # noqa: E402

DASH = "\u2014 "


def leaf_hash(data):
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def tree_root(leaves):
    """MTH(D[n]) by RFC 9162's definition: split at the largest power of two below n."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(tree_root(leaves[:k]), tree_root(leaves[k:]))


def open_note(note, verifier_key):
    """The text of a C2SP signed note signed by the key, or None."""
    try:
        name, key_id_hex, typed_b64 = verifier_key.split("+", 2)
        typed = base64.b64decode(typed_b64, validate=True)
        key_id = bytes.fromhex(key_id_hex)
    except (ValueError, TypeError):
        return None
    if len(typed) != 33 or typed[0] != 1 or len(key_id) != 4:
        return None
    public_key = typed[1:]
    if hashlib.sha256(name.encode() + b"\n\x01" + public_key).digest()[:4] != key_id:
        return None
    split = note.rfind("\n\n")
    if split < 0:
        return None
    text, signatures = note[: split + 1], note[split + 2:]
    for line in signatures.split("\n"):
        if not line.startswith(DASH):
            continue
        signer, _, sig_b64 = line[len(DASH):].partition(" ")
        try:
            sig = base64.b64decode(sig_b64, validate=True)
        except ValueError:
            continue
        if signer == name and sig[:4] == key_id:
            return text if ed25519_verify(public_key, text.encode(), sig[4:]) else None
    return None


def verify(doc, verifier_key):
    key = verifier_key or doc.get("verifierKey", "")
    entries = doc.get("entries", [])
    leaves, prev, broken = [], bytes(32), None
    for expected, row in enumerate(entries, start=1):
        entry = {k: v for k, v in row.items() if k not in ("prevHash", "hash")}
        data = canonical(entry).encode()
        leaves.append(leaf_hash(data))
        if broken is not None:
            continue
        ok = entry.get("id") == expected and row.get("prevHash") == prev.hex() and \
            hashlib.sha256(prev + data).hexdigest() == row.get("hash")
        if not ok:
            broken = expected
            continue
        prev = bytes.fromhex(row["hash"])
    root = tree_root(leaves)
    text = open_note(doc.get("checkpoint", ""), key)
    matches, size = False, 0
    if text is not None:
        lines = text.split("\n")
        if len(lines) >= 4 and lines[1].isdigit():
            size = int(lines[1])
            try:
                cp_root = base64.b64decode(lines[2], validate=True)
            except ValueError:
                cp_root = b""
            matches = lines[0] == doc.get("origin") and size == len(leaves) and cp_root == root
    return {
        "valid": broken is None and text is not None and matches,
        "count": len(entries),
        "brokenAt": broken,
        "treeRootHash": root.hex(),
        "checkpointSize": size,
        "checkpointSignatureValid": text is not None,
        "checkpointMatchesEntries": matches,
        "verifierKeyFrom": "given" if verifier_key else "export",
    }


def main(argv):
    args = argv[1:]
    key = ""
    if "--verifier-key" in args:
        i = args.index("--verifier-key")
        if i + 1 >= len(args):
            print(__doc__, file=sys.stderr)
            return 2
        key = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("cannot read %s: %s" % (args[0], e), file=sys.stderr)
        return 2
    if not isinstance(doc, dict) or doc.get("format") != "svc-audit-export/1":
        print("not an access-log export (format svc-audit-export/1)", file=sys.stderr)
        return 2
    result = verify(doc, key)
    print(json.dumps(result, indent=2))
    return 0 if result["valid"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
