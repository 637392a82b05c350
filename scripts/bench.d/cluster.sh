#!/usr/bin/env bash
# The cluster on Kafka (issue 34): two writer nodes (`--kafka-writers group`) on `svc dev-broker`,
# and how long the partitions go without a writer when a node leaves:
#   clean hand-over  SIGTERM to one node, until the other owns every partition (GET /node) and a
#                    command on each of TENANTS tenants (spread over the partitions) is decided
#   kill -9          the same after SIGKILL: the session timeout, the rebalance, the fence and
#                    the recovery of the partitions' write model
# Each RUNS times; the time is measured from the signal, polling every 20 ms.
#   scripts/bench.d/cluster.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
RUNS=${CLUSTER_RUNS:-5}
TENANTS=${CLUSTER_TENANTS:-16}

now_ms() { date +%s%3N; }

"$SVC" dev-broker > "$WORK/broker.out" 2>&1 &
BROKER_PID=$!
watch_pid "$BROKER_PID"
until grep -q 'bootstrap.servers=' "$WORK/broker.out"; do sleep 0.05; done
BROKERS=$(grep -o 'bootstrap.servers=[^ ]*' "$WORK/broker.out" | head -1 | cut -d= -f2)

# The nodes of a cluster share one master key (the keys topic carries keys wrapped under it).
head -c 32 /dev/urandom | base64 > "$WORK/cluster.key"
chmod 600 "$WORK/cluster.key"

declare -A PID PORT
node_start() {  # name: starts node `name` (its data directory kept across restarts), waits for /readyz
  local n=$1
  rm -f "$WORK/$n.port"
  "$SVC" serve --data-dir "$WORK/$n" --listen 127.0.0.1:0 --port-file "$WORK/$n.port" --dev-keys-in-data-dir \
    --master-key-file "$WORK/cluster.key" \
    --face-engine model-free --log-level warn --node-id "$n" --log-backend kafka --kafka-brokers "$BROKERS" \
    --kafka-writers group >> "$WORK/$n.out" 2>> "$WORK/$n.err" &
  PID[$n]=$!
  watch_pid "${PID[$n]}"
  until [ -s "$WORK/$n.port" ]; do sleep 0.02; kill -0 "${PID[$n]}" || { cat "$WORK/$n.err"; exit 1; }; done
  PORT[$n]=$(cat "$WORK/$n.port")
  until curl -sf "http://127.0.0.1:${PORT[$n]}/readyz" >/dev/null; do sleep 0.02; done
}
owned() { curl -sf "http://127.0.0.1:${PORT[$1]}/node" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["partitions"]["owned"]))' 2>/dev/null || echo 0; }
admin() {  # node method path [body]
  local n=$1 m=$2 p=$3 b=${4:-}
  curl -s -o "$WORK/admin.body" -w '%{http_code}' --unix-socket "$WORK/$n/admin.sock" -X "$m" \
    -H "Authorization: Bearer $(cat "$WORK/$n/service.key")" -H 'Content-Type: application/json' \
    ${b:+--data "$b"} "http://admin$p"
}
all_writes_ok() {  # node: a key created for every tenant through it
  local n=$1 t
  for t in "${TENANT_IDS[@]}"; do
    [ "$(admin "$n" POST "/admin/tenants/$t/keys" '{"scopes":["kyb:read"]}')" = 201 ] || return 1
  done
}
wait_takeover() {  # survivor since_ms: prints ms until it owns every partition and every write succeeds
  local s=$1 t0=$2 owned_at
  until [ "$(owned "$s")" = 4 ]; do sleep 0.02; done
  owned_at=$(now_ms)
  until all_writes_ok "$s"; do sleep 0.02; done
  echo "$((owned_at - t0)) $(($(now_ms) - t0))"
}

node_start a
until [ "$(owned a)" = 4 ]; do sleep 0.05; done
TENANT_IDS=()
for i in $(seq "$TENANTS"); do
  [ "$(admin a POST /admin/tenants "{\"name\":\"Bench $i\"}")" = 201 ] || { cat "$WORK/admin.body"; exit 1; }
  TENANT_IDS+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$WORK/admin.body")")
done
node_start b

both_own() {  # until each node owns some partitions and together all
  until [ $(( $(owned a) + $(owned b) )) = 4 ] && [ "$(owned a)" != 0 ] && [ "$(owned b)" != 0 ]; do sleep 0.05; done
}
leave() {  # run signal how leaving survivor: sets LAST_MS, the time the partitions went without a writer
  local run=$1 sig=$2 how=$3 leaving=$4 survivor=$5 t0 o w
  both_own
  t0=$(now_ms); kill "-$sig" "${PID[$leaving]}"
  read -r o w < <(wait_takeover "$survivor" "$t0")
  wait "${PID[$leaving]}" 2>/dev/null || true
  printf 'cluster: run %d %-10s of %s: %s owns every partition after %5d ms, every write succeeds after %5d ms\n' \
    "$run" "$how" "$leaving" "$survivor" "$o" "$w"
  node_start "$leaving"
  LAST_MS=$w
}

clean=() killed=()
for run in $(seq "$RUNS"); do
  # The node that leaves alternates.
  if [ $((run % 2)) = 1 ]; then leaving=a survivor=b; else leaving=b survivor=a; fi
  leave "$run" TERM "clean stop" "$leaving" "$survivor"; clean+=("$LAST_MS")
  leave "$run" KILL "kill -9" "$leaving" "$survivor"; killed+=("$LAST_MS")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "cluster: median over $RUNS runs: clean hand-over $(median "${clean[@]}") ms (goal <= 2000), takeover after kill -9 $(median "${killed[@]}") ms (goal <= 10000)"
