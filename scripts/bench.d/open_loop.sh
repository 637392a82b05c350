#!/usr/bin/env bash
# Open-loop latency (issue 38 item 2): the closed-loop maximum of each operation measured by wrk
# (one thread, 64 connections), then svc_bench_open_loop sending on a fixed schedule at 25 %, 50 %
# and 75 % of it, each answer timed from the moment it was due (no coordinated omission): p50,
# p99, p99.9, max. GET a session, a list page of 20, a durable session create, a durable person
# create (PII sealed). Goals at 50 %: p99 <= 5 ms for GET and list, <= 15 ms for the creates;
# p99.9 within 4x of p99.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
DURATION=${BENCH_SECONDS:-10}
OPEN=${OPEN_LOOP_BIN:-$BUILD/tests/svc_bench_open_loop}
start_svc --dev-bootstrap
export SVC_BENCH_KEY=$KEY
export SVC_BENCH_SERVER_PID=$SVC_PID  # the generator reports its CPU and the server's
AUTH="Authorization: Bearer $KEY"
ID=$(seed_sessions "$BASE" "$KEY")
person_body='{"pii":{"fullName":"Open Loop {n}","email":"open.loop.{n}@example.mx","phone":"5512345678"}}'
session_body='{"channel":"api","clientReference":"open-loop"}'
# measure NAME PATH METHOD BODY IDEMPOTENT(0|1) WRK-ARGS...
measure() {
  local name=$1 path=$2 method=$3 body=$4 idem=$5
  shift 5
  run_wrk "closed-loop max: $name" -t1 -c64 "$@"
  local max pct rate
  max=$(cat "$WORK/last.rps")
  for pct in 25 50 75; do
    rate=$(python3 -c "print(max(1, round(float('$max') * $pct / 100)))")
    printf '%-14s %3s %% of %s/s: ' "$name" "$pct" "$max"
    if [ "$idem" = 1 ]; then
      "$OPEN" "$BASE$path" "$rate" "$DURATION" 64 "$method" "$body" "$AUTH" "Idempotency-Key: ol-$name-$pct-{n}-$$"
    else
      "$OPEN" "$BASE$path" "$rate" "$DURATION" 64 "$method" "$body" "$AUTH"
    fi
  done
}
measure get "/v1/verification-sessions/$ID" GET "" 0 -H "$AUTH" "$BASE/v1/verification-sessions/$ID"
measure list "/v1/verification-sessions?limit=20" GET "" 0 -H "$AUTH" "$BASE/v1/verification-sessions?limit=20"
measure session-create /v1/verification-sessions POST "$session_body" 1 -s scripts/bench.d/create.lua "$BASE"
measure person-create /v1/persons POST "$person_body" 0 -s scripts/bench.d/person_create.lua "$BASE"
