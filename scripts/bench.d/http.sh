#!/usr/bin/env bash
# HTTP benchmark: nginx serving a static JSON body the size of a session record (the ceiling of
# one core here), then svc: GET a session, a list page of 20, and durable creates (fsync on).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
DURATION=${BENCH_SECONDS:-10}
CONNS=${BENCH_CONNECTIONS:-64}

# 1. nginx, one worker, keep-alive, a static body as large as a session record.
mkdir -p "$WORK/www"
$SVC openapi > /dev/null  # the binary runs
python3 - "$WORK/www/session.json" <<'PY'
import json, sys
rec = {"id":"vrf_"+"a"*32,"publicId":"VS-AAAAAAAAAA","tenantId":"ten_"+"b"*32,"applicationId":"app_"+"c"*32,
       "flowId":None,"personId":None,"channel":"api","status":"pending","currentStep":"consent",
       "clientReference":"bench","country":"MX","locale":"es-MX","trustScore":None,
       "createdAt":"2026-11-22T15:00:00.000Z","updatedAt":"2026-11-22T15:00:00.000Z","startedAt":None,
       "completedAt":None,"decidedAt":None,"expiresAt":"2026-11-23T15:00:00.000Z"}
open(sys.argv[1], "w").write(json.dumps(rec, separators=(",", ":")))
# A list page of 20 such records as svc's list answers it: the list's own floor on this machine
# (the bytes through loopback TCP are most of the difference from a single record).
page = {"object": "list", "data": [rec] * 20, "hasMore": True, "hasPrevious": False, "limit": 20,
        "nextCursor": "c" * 120, "previousCursor": None, "totalCount": None}
open(sys.argv[1].replace("session.json", "list.json"), "w").write(json.dumps(page, separators=(",", ":")))
PY
start_nginx 18089
run_wrk "nginx static JSON ($(stat -c %s $WORK/www/session.json) B)" -t1 -c"$CONNS" http://127.0.0.1:18089/session.json
NGINX_RPS=$(cat "$WORK/last.rps")
run_wrk "nginx static list page ($(stat -c %s $WORK/www/list.json) B)" -t1 -c"$CONNS" http://127.0.0.1:18089/list.json
NGINX_LIST_RPS=$(cat "$WORK/last.rps")
stop_nginx

# 2. svc, Release, embedded log with fsync, rate limits off.
start_svc --dev-bootstrap --rate-reveals 0 --reveal-budget-per-day 1000000000
export SVC_BENCH_KEY=$KEY
AUTH="Authorization: Bearer $KEY"
ID=$(seed_sessions "http://127.0.0.1:$PORT" "$KEY")
run_wrk "svc GET /v1/verification-sessions/{id}" -t1 -c"$CONNS" -H "$AUTH" "http://127.0.0.1:$PORT/v1/verification-sessions/$ID"
GET_RPS=$(cat "$WORK/last.rps")
run_wrk "svc GET list page of 20" -t1 -c"$CONNS" -H "$AUTH" "http://127.0.0.1:$PORT/v1/verification-sessions?limit=20"
LIST_RPS=$(cat "$WORK/last.rps")
run_wrk "svc POST create (durable, fsync) c=$CONNS" -t1 -c"$CONNS" -s scripts/bench.d/create.lua "http://127.0.0.1:$PORT"
CREATE_RPS=$(cat "$WORK/last.rps")
run_wrk "svc POST create (durable, fsync) c=16" -t1 -c16 -s scripts/bench.d/create.lua "http://127.0.0.1:$PORT"
python3 - "$NGINX_RPS" "$GET_RPS" "$LIST_RPS" "$CREATE_RPS" "$NGINX_LIST_RPS" <<'PY'
import sys
n, g, l, c, nl = map(float, sys.argv[1:])
print(f"ratios to nginx: GET {g/n:.0%}, list {l/n:.0%} (nginx's own static list page {nl/n:.0%}, "
      f"svc's list {l/nl:.0%} of it); durable creates {c:.0f}/s")
PY

# 3. The person vault: durable creates with 10 PII fields (each sealed, six blind-indexed), single-
# person decrypts (each a durable access event on the reveal budget before the values open), at
# full load and paced at half that rate, and search by CURP against GET of a session.
run_wrk "svc POST /v1/persons (10 PII fields, durable)" -t1 -c"$CONNS" -s scripts/bench.d/person_create.lua "http://127.0.0.1:$PORT"
PCREATE_RPS=$(cat "$WORK/last.rps")
PERSON=$(curl -s -X POST "http://127.0.0.1:$PORT/v1/persons" -H "$AUTH" -H 'Content-Type: application/json' \
  -d '{"pii":{"curp":"PEPJ800101HDFRRN03","email":"decrypt@example.mx","fullName":"Decrypt Bench"}}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
export SVC_BENCH_PATH="/v1/persons/$PERSON/decrypt"
export SVC_BENCH_BODY='{"fields":["curp","email"],"purpose":"identity_verification","reason":"benchmark"}'
export SVC_BENCH_CONNS=$CONNS
run_wrk "svc POST decrypt (access event fsynced)" -t1 -c"$CONNS" -s scripts/bench.d/person_post.lua "http://127.0.0.1:$PORT"
DECRYPT_RPS=$(cat "$WORK/last.rps")
HALF=$(python3 -c "print(max(1, int(float('$DECRYPT_RPS') / 2)))")
SVC_BENCH_RATE=$HALF run_wrk "svc POST decrypt paced at ~$HALF/s" -t1 -c"$CONNS" -s scripts/bench.d/person_post.lua "http://127.0.0.1:$PORT"
# GET of a session again, on the store as the person creates left it, so that search is compared
# with GET on the same data.
run_wrk "svc GET /v1/verification-sessions/{id} (again)" -t1 -c"$CONNS" -H "$AUTH" "http://127.0.0.1:$PORT/v1/verification-sessions/$ID"
GET2_RPS=$(cat "$WORK/last.rps")
export SVC_BENCH_PATH="/v1/persons/search"
export SVC_BENCH_BODY='{"field":"curp","value":"PEPJ800101HDFRRN03"}'
run_wrk "svc POST /v1/persons/search (curp)" -t1 -c"$CONNS" -s scripts/bench.d/person_post.lua "http://127.0.0.1:$PORT"
SEARCH_RPS=$(cat "$WORK/last.rps")
python3 - "$PCREATE_RPS" "$DECRYPT_RPS" "$SEARCH_RPS" "$GET2_RPS" <<'PY'
import sys
pc, d, s, g = map(float, sys.argv[1:])
print(f"persons: creates {pc:.0f}/s, decrypts {d:.0f}/s, search by CURP {s/g:.0%} of GET session (same store)")
PY
