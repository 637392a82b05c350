#!/usr/bin/env bash
# Open-loop latency (issue 38 item 2): the closed-loop maximum of each operation measured by wrk
# (one thread, 64 connections), then svc_bench_open_loop sending on a fixed schedule at 25 %, 50 %
# and 75 % of it, each answer timed from the moment it was due (no coordinated omission): p50,
# p99, p99.9, max. GET a session, a list page of 20, a durable session create, a durable person
# create (PII sealed). Goals at 50 %: p99 <= 5 ms for GET and list, <= 15 ms for the creates;
# p99.9 within 4x of p99. OPEN_LOOP_PERCENTS picks the levels ("25 50 75"; the smoke run: 50).
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
# settle: before each measured stage, the work an earlier stage left behind is done: the read models
# have applied the whole log and RocksDB runs no flush or compaction, three polls in a row (at most
# OPEN_LOOP_SETTLE_SECONDS, 60). The closed-loop maximum saturates the server for 10 s; measured straight after it, the
# first seconds at 25 % paid for the flushes, compactions and catch-up of that burst (the first
# table in BENCHMARKS.md#open-loop did).
settle() {
  local quiet=0 _
  for _ in $(seq $((${OPEN_LOOP_SETTLE_SECONDS:-60} * 5))); do
    if curl -sf "$BASE/metrics" | awk '
        /^svc_projection_lag_events/ { lag += $2 }
        /^svc_rocksdb_background_jobs / { jobs += $2 }
        /^svc_rocksdb_pending_compaction_bytes / { debt += $2 }
        END { exit (lag == 0 && jobs == 0 && debt == 0) ? 0 : 1 }'; then
      quiet=$((quiet + 1))
      [ "$quiet" -ge 3 ] && return 0
    else
      quiet=0
    fi
    sleep 0.2
  done
  echo "open-loop: the server did not settle in ${OPEN_LOOP_SETTLE_SECONDS:-60} s; measuring anyway" >&2
}
# measure NAME PATH METHOD BODY IDEMPOTENT(0|1) WRK-ARGS...
measure() {
  local name=$1 path=$2 method=$3 body=$4 idem=$5
  shift 5
  run_wrk "closed-loop max: $name" -t1 -c64 "$@"
  local max pct rate
  max=$(cat "$WORK/last.rps")
  for pct in ${OPEN_LOOP_PERCENTS:-25 50 75}; do
    rate=$(python3 -c "print(max(1, round(float('$max') * $pct / 100)))")
    settle
    # Two seconds (OPEN_LOOP_WARMUP_SECONDS) at the rate first, not counted (wrk2 calibrates the
    # same way): connections open, caches and the memtables reach the rate's steady state.
    local phase
    for phase in warm measured; do
      local secs=$DURATION
      [ "$phase" = warm ] && secs=${OPEN_LOOP_WARMUP_SECONDS:-2}
      [ "$phase" = measured ] && printf '%-14s %3s %% of %s/s: ' "$name" "$pct" "$max"
      if [ "$idem" = 1 ]; then
        "$OPEN" "$BASE$path" "$rate" "$secs" 64 "$method" "$body" "$AUTH" "Idempotency-Key: ol-$name-$pct-$phase-{n}-$$"
      else
        "$OPEN" "$BASE$path" "$rate" "$secs" 64 "$method" "$body" "$AUTH"
      fi > "$WORK/open.out"
      [ "$phase" = measured ] && cat "$WORK/open.out"
    done
  done
}
measure get "/v1/verification-sessions/$ID" GET "" 0 -H "$AUTH" "$BASE/v1/verification-sessions/$ID"
measure list "/v1/verification-sessions?limit=20" GET "" 0 -H "$AUTH" "$BASE/v1/verification-sessions?limit=20"
measure session-create /v1/verification-sessions POST "$session_body" 1 -s scripts/bench.d/create.lua "$BASE"
measure person-create /v1/persons POST "$person_body" 0 -s scripts/bench.d/person_create.lua "$BASE"
