#!/usr/bin/env python3
"""Checks a history bundle without the service: Python's standard library only.

    python3 verify_history.py bundle.json [--verifier-key KEY]

The bundle is what GET /v1/audit-logs/history answers (docs/audit.md, "History as of a moment"):
what the service knew about one subject at a moment, with a C2SP signed note. KEY is the C2SP
verifier key of the tenant and environment (GET /v1/audit-logs/verify/checkpoint-key, the same key
as the access log's checkpoints), kept apart from the bundle; without it the bundle's own key is
used, and the output says so. What is checked:

1. the note opens with the key (its Ed25519 signature, the key's name and id);
2. the note's text is, a line each: svc/history/v1, the origin svc/audit/<tenantId>/<environment>,
   "<subjectType> <subjectId>", asOf, and the SHA-256 of the RFC 8785 form of the bundle without
   signedNote and verifierKey: the members the bundle holds are the members that were signed;
3. the events are the subject's, in log order (their positions increase within the partition), each
   at or before asOf, each with a 64-hex eventSha256.

Needs verify_certificate.py and verify_audit_export.py (same folder).
Exit status: 0 valid, 1 not valid, 2 usage or unreadable input. Prints one JSON object.
"""
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_certificate import canonical  # noqa: E402
from verify_audit_export import open_note  # noqa: E402

FORMAT = "svc/history/v1"


def verify(bundle, key):
    out = {"valid": False, "signatureValid": False, "contentMatches": False, "eventsInOrder": False,
           "events": 0, "verifierKeyFrom": "given" if key else "bundle"}
    key = key or bundle.get("verifierKey", "")
    text = open_note(bundle.get("signedNote", ""), key)
    if text is None:
        return out
    out["signatureValid"] = True
    body = {k: v for k, v in bundle.items() if k not in ("signedNote", "verifierKey")}
    digest = hashlib.sha256(canonical(body).encode()).hexdigest()
    expected = [FORMAT, "svc/audit/%s/%s" % (bundle.get("tenantId"), bundle.get("environment")),
                "%s %s" % (bundle.get("subjectType"), bundle.get("subjectId")), str(bundle.get("asOf")), digest]
    out["contentMatches"] = text == "\n".join(expected) + "\n" and bundle.get("format") == FORMAT
    events = bundle.get("events")
    ordered = isinstance(events, list)
    last = None
    for e in events if ordered else []:
        position = str(e.get("position", "")) if isinstance(e, dict) else ""
        m = re.fullmatch(r"(\d+):(\d+)", position)
        if (not m or not re.fullmatch(r"[0-9a-f]{64}", str(e.get("eventSha256", "")))
                or str(e.get("occurredAt", "")) > str(bundle.get("asOf"))):
            ordered = False
            break
        here = (int(m.group(1)), int(m.group(2)))
        if last is not None and (here[0] != last[0] or here[1] <= last[1]):
            ordered = False
            break
        last = here
    out["eventsInOrder"] = ordered
    out["events"] = len(events) if isinstance(events, list) else 0
    out["valid"] = out["signatureValid"] and out["contentMatches"] and ordered
    return out


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
            bundle = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError) as e:
        print("cannot read %s: %s" % (args[0], e), file=sys.stderr)
        return 2
    if not isinstance(bundle, dict) or bundle.get("object") != "history_bundle":
        print("not a history bundle", file=sys.stderr)
        return 2
    result = verify(bundle, key)
    print(json.dumps(result, indent=2))
    return 0 if result["valid"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
