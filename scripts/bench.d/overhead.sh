#!/usr/bin/env bash
# The cluster's overhead per request (issue 34): CPU per request by role for GET one session, a list
# page of 20 and a durable create (server CPU over a run divided by the requests it answered), on a
# cluster of one node and on one of three nodes (every role, `--kafka-writers group`, one tenant, so
# that two creates in three travel to the one writer of its partition), all on `svc dev-broker`;
# then creates/s through nginx in front of the one node and of the three. On one machine the three
# nodes share its cores: this shows what the cluster costs per request, not how it scales.
#   scripts/bench.d/overhead.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
DURATION=${OVERHEAD_SECONDS:-5}
CONNS=${OVERHEAD_CONNS:-24}

declare -A PID PORT
node_start() { group_node_start "$1" - --face-engine model-free --rate-reads 0 --rate-writes 0; }  # name
ticks() {  # pids...: their user + system clock ticks
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  echo "$t"
}
HZ=$(getconf CLK_TCK)

# load name pids urls... (wrk args in WRK_ARGS): one wrk per url at once, CONNS connections shared out;
# prints requests/s (all) and the svc CPU per request.
load() {
  local name=$1 pids=$2
  shift 2
  local per=$((CONNS / $#)) i=0 u t0 t1 w
  local wrks=()
  [ "$per" -ge 1 ] || per=1
  t0=$(ticks $pids)
  for u in "$@"; do
    SVC_BENCH_SALT="$i-$RANDOM" wrk -t1 -c"$per" -d"${DURATION}s" "${WRK_ARGS[@]}" "$u" > "$WORK/wrk.$i" 2>&1 &
    wrks+=($!)
    i=$((i + 1))
  done
  for w in "${wrks[@]}"; do wait "$w"; done
  t1=$(ticks $pids)
  python3 - "$name" "$HZ" "$((t1 - t0))" "$WORK"/wrk.* <<'PY'
import re, sys
name, hz, ticks, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
reqs = rps = non2xx = 0
for f in files:
    text = open(f).read()
    reqs += int(re.search(r"(\d+) requests in", text).group(1))
    rps += float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    non2xx += int(m.group(1)) if m else 0
print(f"overhead: {name:44} {rps:9.0f} req/s  server CPU {ticks / hz * 1e6 / max(reqs, 1):7.0f} us/request  non-2xx {non2xx}")
PY
  rm -f "$WORK"/wrk.*
}

front() {  # port nodes...: nginx on `port` spreading requests over the nodes
  local port=$1 n
  shift
  {
    echo "worker_processes 1; pid $WORK/nginx.pid; error_log $WORK/nginx.err;"
    echo "events { worker_connections 1024; }"
    echo "http { access_log off; upstream svc {"
    for n in "$@"; do echo "server 127.0.0.1:${PORT[$n]};"; done
    echo "keepalive 64; } server { listen 127.0.0.1:$port; location / { proxy_pass http://svc;"
    echo "proxy_http_version 1.1; proxy_set_header Connection \"\"; } } }"
  } > "$WORK/nginx.conf"
  nginx -c "$WORK/nginx.conf"
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

for size in 1 3; do
  broker_start
  names=()
  for i in $(seq "$size"); do node_start "c$size-$i"; names+=("c$size-$i"); done
  until total=0; for n in "${names[@]}"; do total=$((total + $(owned "$n"))); done; [ "$total" = 4 ]; do sleep 0.05; done
  first=${names[0]}
  [ "$(admin "$first" POST /admin/tenants '{"name":"Overhead bench"}')" = 201 ] || { cat "$WORK/admin.body"; exit 1; }
  tenant=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$WORK/admin.body")
  [ "$(admin "$first" POST "/admin/tenants/$tenant/keys" '{"environment":"test","scopes":["*"]}')" = 201 ] || { cat "$WORK/admin.body"; exit 1; }
  KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["secret"])' "$WORK/admin.body")
  export SVC_BENCH_KEY=$KEY
  base="http://127.0.0.1:${PORT[$first]}"
  ID=$(seed_sessions "$base" "$KEY")
  pids=""; urls_get=(); urls_list=(); urls_root=()
  for n in "${names[@]}"; do
    pids="$pids ${PID[$n]}"
    # Every node answers once its own read models hold the seeds.
    until curl -sf -o /dev/null "http://127.0.0.1:${PORT[$n]}/v1/verification-sessions/$ID" -H "Authorization: Bearer $KEY"; do sleep 0.05; done
    urls_get+=("http://127.0.0.1:${PORT[$n]}/v1/verification-sessions/$ID")
    urls_list+=("http://127.0.0.1:${PORT[$n]}/v1/verification-sessions?limit=20")
    urls_root+=("http://127.0.0.1:${PORT[$n]}")
  done
  WRK_ARGS=(-H "Authorization: Bearer $KEY")
  load "$size node(s): GET /v1/verification-sessions/{id}" "$pids" "${urls_get[@]}"
  load "$size node(s): GET list page of 20" "$pids" "${urls_list[@]}"
  WRK_ARGS=(-s scripts/bench.d/create.lua)
  load "$size node(s): POST create (one tenant)" "$pids" "${urls_root[@]}"
  port=$(free_port)
  front "$port" "${names[@]}"
  load "$size node(s): POST create through nginx" "$pids" "http://127.0.0.1:$port"
  stop_nginx
  for n in "${names[@]}"; do stop_pid "${PID[$n]}"; done
  stop_pid "$BROKER_PID"
done
