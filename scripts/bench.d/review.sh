#!/usr/bin/env bash
# The review queue at scale (issue 17's benchmark): CASES open cases (seeded through the write side
# by svc_bench_review), then
#   - nginx serving the very body of a queue page of 20, static (the ceiling of one core), and
#     svc serving GET /v1/review/queue?limit=20 from the read model: the ratio (target >= 25%);
#   - claims under contention: 64 connections claiming distinct cases (each claim a durable
#     append, fsync on), and 64 reviewers (keys) all claiming one case (one wins, every other
#     attempt is 409 CASE_ALREADY_CLAIMED: the lock's throughput when everyone wants the same case).
#   scripts/bench.d/review.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
CASES=${REVIEW_CASES:-100000}
DURATION=${BENCH_SECONDS:-10}
CONNS=${BENCH_CONNECTIONS:-64}

"$BUILD/tests/svc_bench_review" "$WORK/data" "$CASES" > "$WORK/seed.json"
KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$WORK/seed.json")
SEED=$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["seedSeconds"], 1))' "$WORK/seed.json")
echo "review: $CASES open cases seeded through the write side in ${SEED}s"
export SVC_BENCH_KEY=$KEY
AUTH="Authorization: Bearer $KEY"

start_svc
QUEUE="http://127.0.0.1:$PORT/v1/review/queue?limit=20"

mkdir -p "$WORK/www"
curl -sf "$QUEUE" -H "$AUTH" > "$WORK/www/queue.json"
python3 - "$WORK/www/queue.json" "$CASES" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
assert len(page["data"]) == 20 and page["hasMore"], page
assert page["data"][0]["priority"] == "critical"
PY
start_nginx 18090
run_wrk "nginx static queue page ($(stat -c %s $WORK/www/queue.json) B)" -t1 -c"$CONNS" http://127.0.0.1:18090/queue.json
NGINX_RPS=$(cat "$WORK/last.rps")
stop_nginx
run_wrk "svc GET /v1/review/queue?limit=20 ($CASES open)" -t1 -c"$CONNS" -H "$AUTH" "$QUEUE"
QUEUE_RPS=$(cat "$WORK/last.rps")

# Claims: distinct cases (the ids after the first one), then everyone on the first.
tail -n +2 "$(dirname "$WORK/data")/case-ids.txt" > "$WORK/ids.txt"
HOT=$(head -n 1 "$(dirname "$WORK/data")/case-ids.txt")
SVC_BENCH_IDS="$WORK/ids.txt" run_wrk "svc POST claim, distinct cases c=$CONNS" -t1 -c"$CONNS" \
  -s scripts/bench.d/claim.lua "http://127.0.0.1:$PORT"
CLAIM_RPS=$(cat "$WORK/last.rps")
SVC_BENCH_PATH="/v1/review/cases/$HOT/claim" SVC_BENCH_KEYS="$(dirname "$WORK/data")/reviewer-keys.txt" \
  run_wrk "svc POST claim, one case, 64 reviewers c=$CONNS" -t1 -c"$CONNS" -s scripts/bench.d/hot_claim.lua \
  "http://127.0.0.1:$PORT"
HOT_RPS=$(cat "$WORK/last.rps")
HOLDER=$(curl -sf "http://127.0.0.1:$PORT/v1/review/cases/$HOT" -H "$AUTH" | python3 -c 'import json,sys; print(json.load(sys.stdin)["case"]["status"])' || echo "?")
python3 - "$NGINX_RPS" "$QUEUE_RPS" "$CLAIM_RPS" "$HOT_RPS" "$HOLDER" <<'PY'
import sys
n, q, c, h = map(float, sys.argv[1:5])
print(f"review: queue page {q/n:.0%} of nginx static; claims {c:.0f}/s (distinct cases), "
      f"{h:.0f} contested attempts/s on one case (status after: {sys.argv[5]})")
PY
