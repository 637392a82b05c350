#!/usr/bin/env python3
"""Checks an export of the access log without the service: Python's standard library only.

    python3 verify_audit_export.py export.jsonl [--verifier-key KEY]

The export is what `svc audit export` writes (docs/audit.md): JSON lines, a header object first
(format svc-audit-export/2), then one entry per line. KEY is the C2SP verifier key of the
tenant and environment (GET /v1/audit-logs/verify/checkpoint-key), kept apart from the export; without
it the export's own key is used, and the output says so. What is checked, as `svc audit verify` does:

1. the hash chain: entry n has id n, prevHash = the previous entry's hash (32 zero bytes first),
   hash = SHA-256(prevHash || RFC 8785 form of the entry without prevHash and hash, and without
   reason and reasonKey in an entry holding reasonSealed: the caller's reason is hashed sealed,
   with reasonCommitment = HMAC-SHA-256(reasonKey, reason), checked when the reason is shown);
2. the Merkle tree (RFC 9162) of the entries: leaf = SHA-256(0x00 || the entry's hash as 32
   bytes), node = SHA-256(0x01 || left || right);
3. the checkpoint: a C2SP signed note whose Ed25519 signature verifies with the key, and whose
   body (origin, size, base64 root) is the export's origin and the tree of exactly its entries;
4. every checkpoint published in the log ("checkpoints"): it opens with the key, names the export's
   origin, and its size and root are the tree of that many first entries (a published size beyond
   the entries means the log's tail was cut).

Needs verify_certificate.py (same folder) for RFC 8785 and Ed25519.
Exit status: 0 valid, 1 not valid, 2 usage or unreadable input. Prints one JSON object.
"""
import base64
import hashlib
import hmac
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_certificate import canonical, ed25519_verify  # noqa: E402

DASH = "\u2014 "


def leaf_hash(data):
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


class CompactRange:
    """A growing RFC 9162 tree kept as its perfect subtrees: the head of every size on the way."""

    def __init__(self):
        self.nodes, self.size = [], 0

    def append(self, leaf):
        self.nodes.append(leaf)
        n = self.size
        while n & 1:
            right = self.nodes.pop()
            self.nodes[-1] = node_hash(self.nodes[-1], right)
            n >>= 1
        self.size += 1

    def root(self):
        """MTH(D[size]): split at the largest power of two below the size, as RFC 9162 defines."""
        if not self.nodes:
            return hashlib.sha256(b"").digest()
        h = self.nodes[-1]
        for left in reversed(self.nodes[:-1]):
            h = node_hash(left, h)
        return h


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


def checkpoint_body(note, key):
    """(origin, size, root bytes) of a checkpoint note that opens with the key, or None."""
    text = open_note(note, key) if isinstance(note, str) else None
    if text is None:
        return None
    lines = text.split("\n")
    if len(lines) < 4 or not lines[0] or not re.fullmatch(r"0|[1-9][0-9]{0,19}", lines[1]):
        return None
    try:
        root = base64.b64decode(lines[2], validate=True)
    except ValueError:
        return None
    return (lines[0], int(lines[1]), root) if len(root) == 32 else None


def is_hash(value):
    """64 lowercase hex characters: the form the log writes, nothing else."""
    return isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value) is not None


def size_of(published):
    size = published.get("treeSize")
    return size if type(size) is int else 0


def verify(doc, verifier_key):
    key = verifier_key or doc.get("verifierKey", "")
    origin = doc.get("origin")
    entries = doc.get("entries", [])
    listed = doc.get("checkpoints") if isinstance(doc.get("checkpoints"), list) else []
    published = sorted((p if isinstance(p, dict) else {} for p in listed), key=size_of)
    bad_published = None

    tree, prev, broken = CompactRange(), bytes(32), None
    nxt = 0

    def check_published():
        nonlocal nxt, bad_published
        while nxt < len(published):
            p = published[nxt]
            size = size_of(p)
            if size > tree.size:
                return
            nxt += 1
            if bad_published is not None:
                continue
            body = checkpoint_body(p.get("checkpoint"), key)
            # (its rootHash is the recorded one; the note's is what the key signed)
            ok = body is not None and size >= 1 and body[0] == origin and body[1] == size == tree.size and \
                body[2] == tree.root() and p.get("rootHash") == body[2].hex()
            if not ok:
                bad_published = size

    check_published()
    for expected, row in enumerate(entries, start=1):
        claimed = row.get("hash") if isinstance(row, dict) else None
        # The leaf: over the entry's hash as 32 bytes (no bytes when it has none); still a leaf
        # when the row is not an entry at all, and the chain breaks there.
        tree.append(leaf_hash(bytes.fromhex(claimed) if is_hash(claimed) else b""))
        check_published()
        if broken is not None:
            continue
        if not isinstance(row, dict):
            broken = expected
            continue
        entry = {k: v for k, v in row.items() if k not in ("prevHash", "hash")}
        reason_ok = True
        if "reasonSealed" in entry:
            # Hashed sealed with its commitment; a served entry adds the reason and the
            # commitment's key opened, and the reason must be the one committed to.
            reason, reason_key = entry.pop("reason", None), entry.pop("reasonKey", None)
            if reason is not None:
                commitment = entry.get("reasonCommitment")
                reason_ok = isinstance(reason, str) and is_hash(reason_key) and is_hash(commitment) and hmac.compare_digest(
                    hmac.new(bytes.fromhex(reason_key), reason.encode(), hashlib.sha256).hexdigest(), commitment)
        data = canonical(entry).encode()
        ok = reason_ok and type(entry.get("id")) is int and entry["id"] == expected and is_hash(row.get("prevHash")) and \
            row.get("prevHash") == prev.hex() and is_hash(claimed) and hashlib.sha256(prev + data).hexdigest() == claimed
        if not ok:
            broken = expected
            continue
        prev = bytes.fromhex(row["hash"])
    if nxt < len(published) and bad_published is None:  # commits to entries the export does not hold
        bad_published = size_of(published[nxt])
    root = tree.root()
    body = checkpoint_body(doc.get("checkpoint", ""), key)
    size = body[1] if body else 0
    matches = body is not None and body[0] == origin and size == tree.size and body[2] == root
    return {
        "valid": broken is None and body is not None and matches and bad_published is None,
        "count": len(entries),
        "brokenAt": broken,
        "treeRootHash": root.hex(),
        "checkpointSize": size,
        "checkpointSignatureValid": open_note(doc.get("checkpoint", ""), key) is not None
        if isinstance(doc.get("checkpoint", ""), str) else False,
        "checkpointMatchesEntries": matches,
        "publishedCheckpoints": len(listed),
        "firstBadPublishedCheckpoint": bad_published,
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
        with open(args[0], "rb") as f:
            header_line = f.readline()
            try:
                doc = json.loads(header_line.decode("utf-8"))
            except ValueError:  # UnicodeDecodeError is one
                doc = None
            if not isinstance(doc, dict) or doc.get("format") != "svc-audit-export/2":
                print("not an access-log export (format svc-audit-export/2)", file=sys.stderr)
                return 2
            entries = []
            for line in f:
                if not line.strip(b" \t\r\n"):
                    continue
                try:
                    entries.append(json.loads(line.decode("utf-8")))
                except ValueError:
                    entries.append(None)  # not JSON: not an entry, the chain breaks there
    except OSError as e:
        print("cannot read %s: %s" % (args[0], e), file=sys.stderr)
        return 2
    doc["entries"] = entries
    result = verify(doc, key)
    print(json.dumps(result, indent=2))
    return 0 if result["valid"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
