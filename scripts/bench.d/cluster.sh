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

broker_start
declare -A PID PORT
node_start() { group_node_start "$1" - --face-engine model-free; }  # name: (again) node `name`
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
