#!/usr/bin/env bash
# scripts/cluster end to end (ctest integration.cluster_front; labels integration, kafka, cluster):
# three nodes behind nginx, two clients sending person creates (each with its Idempotency-Key) and
# list reads through the front while each node in turn is stopped (SIGTERM) and started again (a
# rolling restart), then while one node is killed (kill -9) and started again. Asserts what a user
# sees: no request failed at the front, and afterwards every partition has exactly one writer.
#   tests/cluster/front_test.sh SVC_BINARY
set -euo pipefail
SVC_BIN=$(realpath "$1")
cd "$(dirname "$0")/../.."
WORK=$(mktemp -d)
C=$WORK/c
CPID=
cleanup() {
  local rc=$?
  set +e
  touch "$WORK/stop"
  [ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
  # Nodes started again by this test are not the script's children.
  pkill -f -- "--data-dir $C/node-" 2>/dev/null || true
  for _ in $(seq 100); do pgrep -f -- "--data-dir $C/node-" > /dev/null || break; sleep 0.1; done
  pkill -9 -f -- "--data-dir $C/node-" 2>/dev/null || true
  if [ $rc -ne 0 ]; then
    tail -30 "$WORK/cluster.out" "$C"/node-*.err 2>/dev/null | grep -v '"level":"info"' | tail -60
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Four free ports in a row: the front and its three nodes.
PORT=$(python3 - <<'PY'
import socket
for base in range(20000 + __import__('os').getpid() % 20000, 60000, 7):
    socks = []
    try:
        for p in range(base, base + 4):
            s = socket.socket(); s.bind(("127.0.0.1", p)); socks.append(s)
        print(base); break
    except OSError:
        pass
    finally:
        for s in socks: s.close()
PY
)
CLUSTER_DIR=$C SVC_BIN=$SVC_BIN scripts/cluster "$PORT" > "$WORK/cluster.out" 2>&1 &
CPID=$!
for _ in $(seq 3000); do
  grep -q 'Ctrl-C stops everything' "$WORK/cluster.out" && break
  kill -0 "$CPID" 2>/dev/null || fail "scripts/cluster exited"
  sleep 0.1
done
grep -q 'Ctrl-C stops everything' "$WORK/cluster.out" || fail "scripts/cluster did not start in 300 s"
KEY=$(sed -n 's/^  test key: *//p' "$WORK/cluster.out")
FRONT=http://127.0.0.1:$PORT
[ -n "$KEY" ] || fail "no test key printed"

load() {  # client: until $WORK/stop exists, a create then a list read; each status on a line
  local c=$1 i=0 code
  while [ ! -e "$WORK/stop" ]; do
    i=$((i + 1))
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -X POST "$FRONT/v1/persons" \
      -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -H "Idempotency-Key: load-$c-$i" \
      -d "{\"pii\":{\"email\":\"c$c-$i@example.mx\"}}" || true)
    echo "POST $code" >> "$WORK/codes.$c"
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 "$FRONT/v1/persons?limit=5" \
      -H "Authorization: Bearer $KEY" || true)
    echo "GET $code" >> "$WORK/codes.$c"
  done
}
owners() {  # the partitions each node writes, as "node:[..]" words; "" for a node that is down
  local n
  for n in 1 2 3; do
    curl -sf --max-time 5 "http://127.0.0.1:$((PORT + n))/node" |
      python3 -c 'import json,sys; j=json.load(sys.stdin); print(",".join(map(str, j["partitions"]["owned"])))' 2>/dev/null || echo ""
  done
}
settled() {  # every partition 0..3 written by exactly one node, every node up
  local all
  all=$(owners | tr '\n' ',' | tr -s ',' | sed 's/^,//; s/,$//')
  [ "$(owners | grep -c .)" = 3 ] && [ "$(echo "$all" | tr ',' '\n' | sort -n | tr '\n' ' ')" = "0 1 2 3 " ]
}
wait_settled() {
  for _ in $(seq 600); do settled && return 0; sleep 0.1; done
  owners >&2
  fail "the partitions did not settle on three nodes"
}
node_pid() { pgrep -f -- "--data-dir $C/node-$1 " | head -1; }
restart() {  # n signal
  local n=$1 sig=$2 pid
  pid=$(node_pid "$n")
  [ -n "$pid" ] || fail "node-$n is not running"
  kill "-$sig" "$pid"
  for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "node-$n did not stop"
  bash "$C/node-$n.cmd" &
  for _ in $(seq 1200); do curl -sf "http://127.0.0.1:$((PORT + n))/readyz" > /dev/null && break; sleep 0.1; done
  wait_settled
}

wait_settled
load 1 &
L1=$!
load 2 &
L2=$!
for n in 1 2 3; do restart "$n" TERM; done  # a rolling restart
restart 2 KILL                              # a node lost, then back
touch "$WORK/stop"
wait "$L1" "$L2"

total=$(cat "$WORK"/codes.* | wc -l)
failed=$(cat "$WORK"/codes.* | grep -cvE '^(POST 201|GET 200)$' || true)
echo "requests through the front: $total, failed: $failed"
[ "$total" -gt 20 ] || fail "too few requests: $total"
if [ "$failed" -ne 0 ]; then
  sort "$WORK"/codes.* | uniq -c >&2
  fail "$failed requests failed at the front"
fi
