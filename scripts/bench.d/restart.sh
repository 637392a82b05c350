#!/usr/bin/env bash
# Restart after a crash (issue 31's benchmark), on both log backends: EVENTS person creations
# loaded through the real runtime (tests/bench/restart_bench.cc), which then ends as a kill -9
# would (the read models' and the write model's last batches lost); then `svc serve` started on
# the directory and timed from exec to /readyz 200 (the write model recovered, every read model
# caught up with the log, so the first request is answered); then a clean stop and start, timed
# the same way. The log lines say how many events the write model re-applied.
#   scripts/bench.d/restart.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
EVENTS=${RESTART_EVENTS:-1000000}

now_ms() { date +%s%3N; }

serve_until_ready() {  # label, extra args...: starts svc serve, prints the time to /readyz 200
  local label=$1; shift
  rm -f "$WORK/port"
  local t0; t0=$(now_ms)
  "$SVC" serve --data-dir "$WORK/data" --dev-keys-in-data-dir --listen 127.0.0.1:0 --port-file "$WORK/port" \
    --face-engine model-free "$@" > "$WORK/serve.out" 2> "$WORK/serve.err" &
  SVC_PID=$!
  watch_pid "$SVC_PID"
  until [ -s "$WORK/port" ]; do sleep 0.01; kill -0 "$SVC_PID" || { cat "$WORK/serve.err"; exit 1; }; done
  local listening; listening=$(now_ms)
  until curl -sf "http://127.0.0.1:$(cat "$WORK/port")/readyz" >/dev/null; do sleep 0.01; done
  local ready; ready=$(now_ms)
  local applied
  applied=$(grep -o '"msg":"write model recovered"[^}]*' "$WORK/serve.err" | grep -o '"eventsApplied":[0-9]*' | cut -d: -f2)
  printf 'restart: %-44s listening after %6d ms, ready after %6d ms (write model re-applied %s events)\n' \
    "$label" $((listening - t0)) $((ready - t0)) "${applied:-?}"
}

for backend in embedded kafka; do
  rm -rf "$WORK/data"
  extra=()
  if [ "$backend" = kafka ]; then
    "$SVC" dev-broker > "$WORK/broker.out" 2>&1 &
    BROKER_PID=$!
    watch_pid "$BROKER_PID"
    until grep -q 'bootstrap.servers=' "$WORK/broker.out"; do sleep 0.05; done
    brokers=$(grep -o 'bootstrap.servers=[^ ]*' "$WORK/broker.out" | head -1 | cut -d= -f2)
    extra=(--log-backend kafka --kafka-brokers "$brokers")
    "$BUILD/tests/svc_bench_restart" "$WORK/data" "$EVENTS" "$brokers"
  else
    "$BUILD/tests/svc_bench_restart" "$WORK/data" "$EVENTS"
  fi
  serve_until_ready "$backend, $EVENTS events, after a crash" "${extra[@]}"
  kill -TERM "$SVC_PID"; wait "$SVC_PID" || true
  serve_until_ready "$backend, $EVENTS events, after a clean stop" "${extra[@]}"
  kill -TERM "$SVC_PID"; wait "$SVC_PID" || true
  if [ "$backend" = kafka ]; then kill "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null || true; fi
done
