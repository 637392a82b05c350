# Shared by the benchmarks that start servers (http.sh, review.sh, aml.sh, widget.sh, restart.sh),
# sourced from the repository's root with the script's arguments: strict mode, BUILD (the build
# directory, $1), SVC (its svc, or $SVC_BIN), WORK (a fresh directory, removed on exit).
# run_wrk also needs $DURATION.
set -euo pipefail
BUILD=${1:-build-release}
SVC=${SVC_BIN:-$BUILD/api/svc}
WORK=$(mktemp -d)

# Sourcing installs the EXIT trap: whatever ends the script, nginx (if started) and every process
# given to watch_pid get SIGTERM and are waited for (up to 30 s each, then SIGKILL), and only then
# is $WORK removed. Removing it under a server that is still closing its database fails with
# "Directory not empty" (CI, bench.smoke, 2026-11-26).
BENCH_PIDS=()
watch_pid() { BENCH_PIDS+=("$1"); }

stop_pid() {  # pid: SIGTERM, wait for it to be gone (bash reaps its own children), SIGKILL at 30 s
  local p=$1 i
  kill "$p" 2>/dev/null || return 0
  for i in $(seq 300); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$p" 2>/dev/null || true
}

stop_all_and_clean() {
  local rc=$? p
  [ -s "$WORK/nginx.pid" ] && stop_pid "$(cat "$WORK/nginx.pid")"
  for p in "${BENCH_PIDS[@]}"; do stop_pid "$p"; done
  rm -rf "$WORK"
  exit "$rc"
}
trap stop_all_and_clean EXIT

start_svc() {  # extra `svc serve` flags...: $SVC on a free loopback port over $WORK/data, development
  # keys, the model-free face engine, no rate limits; returns once /readyz answers 200 (exit 1 if the
  # server dies or is not ready in 60 s). Sets SVC_PID, PORT, BASE and, under --dev-bootstrap
  # (the port file is written after the key is printed), KEY.
  "$SVC" serve --data-dir "$WORK/data" --listen 127.0.0.1:0 --port-file "$WORK/port" --dev-keys-in-data-dir \
    --face-engine model-free --rate-reads 0 --rate-writes 0 --log-level warn "$@" > "$WORK/svc.out" 2> "$WORK/svc.err" &
  SVC_PID=$!
  watch_pid $SVC_PID
  local _
  for _ in $(seq 600); do
    kill -0 $SVC_PID 2>/dev/null || { cat "$WORK/svc.err" >&2; exit 1; }
    [ -s "$WORK/port" ] && curl -sf "http://127.0.0.1:$(cat "$WORK/port")/readyz" >/dev/null && break
    sleep 0.1
  done
  PORT=$(cat "$WORK/port")
  BASE="http://127.0.0.1:$PORT"
  curl -sf "$BASE/readyz" >/dev/null || { echo "svc: not ready after 60 s" >&2; exit 1; }
  local key
  key=$(sed -n 's/.*Test secret key (shown once, keep it): \(svc_[A-Za-z0-9_]*\).*/\1/p' "$WORK/svc.out")
  if [ -n "$key" ]; then KEY=$key; fi
}

run_wrk() {  # name, wrk args...: one wrk run, one summary line; its req/s in $WORK/last.rps
  local name=$1; shift
  wrk --latency -d"${DURATION}s" "$@" > "$WORK/wrk.out" 2>&1
  local rps p50 p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.out")
  p50=$(awk '$1=="50%" {print $2}' "$WORK/wrk.out")
  p99=$(awk '$1=="99%" {print $2}' "$WORK/wrk.out")
  local errs
  errs=$(awk '/Non-2xx/ {print $5}' "$WORK/wrk.out")
  printf '%-44s %10s req/s  p50 %-9s p99 %-9s non-2xx %s\n' "$name" "$rps" "$p50" "$p99" "${errs:-0}"
  echo "$rps" > "$WORK/last.rps"
}

start_nginx() {  # port: nginx, one worker, keep-alive, serving $WORK/www (the ceiling of one core)
  chmod 755 "$WORK" "$WORK/www"
  chmod 644 "$WORK"/www/*
  cat > "$WORK/nginx.conf" <<NGINX
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx.err;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$1;
    location / { root $WORK/www; default_type application/json; }
  }
}
NGINX
  nginx -c "$WORK/nginx.conf"
}

stop_nginx() {
  stop_pid "$(cat "$WORK/nginx.pid")"
  rm -f "$WORK/nginx.pid"
}

# Clusters on `svc dev-broker` (cluster.sh, workers.sh, overhead.sh; extracted at the third). The
# caller declares `declare -A PID PORT`; the nodes share the master key $WORK/cluster.key (the keys
# topic carries keys wrapped under it).
broker_start() {  # a fresh dev broker (topics for the default prefix): sets BROKER_PID and BROKERS
  rm -f "$WORK/broker.out"
  "$SVC" dev-broker > "$WORK/broker.out" 2>&1 &
  BROKER_PID=$!
  watch_pid "$BROKER_PID"
  until grep -q 'bootstrap.servers=' "$WORK/broker.out"; do sleep 0.05; done
  BROKERS=$(grep -o 'bootstrap.servers=[^ ]*' "$WORK/broker.out" | head -1 | cut -d= -f2)
  if [ ! -s "$WORK/cluster.key" ]; then
    head -c 32 /dev/urandom | base64 > "$WORK/cluster.key"
    chmod 600 "$WORK/cluster.key"
  fi
}

group_node_start() {  # name cpu-list|- flags...: a node of the writers' group on $BROKERS, pinned to
  # the cpus unless -, its data directory kept across restarts; sets PID[name] and PORT[name] and
  # returns once /readyz answers 200 (exit 1 if the node dies first)
  local n=$1 cpus=$2
  shift 2
  local pin=()
  [ "$cpus" = - ] || pin=(taskset -c "$cpus")
  rm -f "$WORK/$n.port"
  "${pin[@]}" "$SVC" serve --data-dir "$WORK/$n" --listen 127.0.0.1:0 --port-file "$WORK/$n.port" \
    --dev-keys-in-data-dir --master-key-file "$WORK/cluster.key" --log-level warn --node-id "$n" \
    --log-backend kafka --kafka-brokers "$BROKERS" --kafka-writers group "$@" >> "$WORK/$n.out" 2>> "$WORK/$n.err" &
  PID[$n]=$!
  watch_pid "${PID[$n]}"
  until [ -s "$WORK/$n.port" ]; do sleep 0.02; kill -0 "${PID[$n]}" || { cat "$WORK/$n.err"; exit 1; }; done
  PORT[$n]=$(cat "$WORK/$n.port")
  until curl -sf "http://127.0.0.1:${PORT[$n]}/readyz" >/dev/null; do sleep 0.02; done
}

owned() {  # name: how many log partitions the node writes (GET /node)
  curl -sf "http://127.0.0.1:${PORT[$1]}/node" |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["partitions"]["owned"]))' 2>/dev/null || echo 0
}

admin() {  # node method path [body]: the status of an admin-socket call; its body in $WORK/admin.body
  local n=$1 m=$2 p=$3 b=${4:-}
  curl -s -o "$WORK/admin.body" -w '%{http_code}' --unix-socket "$WORK/$n/admin.sock" -X "$m" \
    -H "Authorization: Bearer $(cat "$WORK/$n/service.key")" -H 'Content-Type: application/json' \
    ${b:+--data "$b"} "http://admin$p"
}

seed_sessions() {  # base url, key: 30 sessions created (each its own Idempotency-Key); prints the newest's id
  local base=$1 key=$2 i
  for i in $(seq 30); do
    curl -sf -o /dev/null -X POST "$base/v1/verification-sessions" -H "Authorization: Bearer $key" \
      -H "Idempotency-Key: seed-$i" -H 'Content-Type: application/json' -d '{"channel":"api"}'
  done
  curl -sf "$base/v1/verification-sessions?limit=1" -H "Authorization: Bearer $key" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["id"])'
}
