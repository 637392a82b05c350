#!/usr/bin/env bash
# scripts/cluster end to end (ctest integration.cluster_front; labels integration, kafka, cluster):
# three nodes behind nginx and a webhook receiver (tests/receiver: the reference Standard Webhooks
# package). Through the front, two clients send person creates and list reads, and a third
# (tests/cluster/load.py) person and session creates (each sent twice with its Idempotency-Key),
# decrypts and full verifications of docs/samples, while each node in turn is stopped (SIGTERM)
# and started again (a rolling restart), then while the node that writes the most partitions is
# killed (kill -9) and started again. Asserts what a user sees: no request failed at the front;
# every partition has exactly one writer; every acknowledged write is on every node; every retried
# Idempotency-Key gave the first result; every verification has one verdict and each stage once;
# every verdict's webhook arrived and verifies; every decrypt has its access-log entry and the
# chain verifies on every node; and, the nodes stopped, `svc replay --verify` on each node rebuilds
# read models identical to its own, with the same rows on all three. Before the load, one CURP
# sent to the three nodes at once, five times: exactly one 201 each time.
#   tests/cluster/front_test.sh SVC_BINARY
set -euo pipefail
SVC_BIN=$(realpath "$1")
cd "$(dirname "$0")/../.."
WORK=$(mktemp -d)
C=$WORK/c
CPID=
RPID=
cleanup() {
  local rc=$?
  set +e
  touch "$WORK/stop"
  [ -n "$RPID" ] && kill "$RPID" 2>/dev/null
  [ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
  # Nodes started again by this test are not the script's children.
  pkill -f -- "--data-dir $C/node-" 2>/dev/null || true
  for _ in $(seq 100); do pgrep -f -- "--data-dir $C/node-" > /dev/null || break; sleep 0.1; done
  pkill -9 -f -- "--data-dir $C/node-" 2>/dev/null || true
  if [ $rc -ne 0 ]; then
    tail -30 "$WORK/cluster.out" "$C"/node-*.err "$WORK"/load.*.err 2>/dev/null | grep -v '"level":"info"' | tail -60
    grep -v ' \[notice\] ' "$C/nginx.err" 2>/dev/null | tail -30
  fi
  # FRONT_TEST_KEEP=dir keeps a failed run's logs and state there (it is wiped first).
  [ $rc -ne 0 ] && [ -n "${FRONT_TEST_KEEP:-}" ] && rm -rf "$FRONT_TEST_KEEP" && cp -r "$WORK" "$FRONT_TEST_KEEP"
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
  local t0=$SECONDS
  kill "-$sig" "$pid"
  for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "node-$n did not stop"
  bash "$C/node-$n.cmd" &
  for _ in $(seq 1200); do curl -sf "http://127.0.0.1:$((PORT + n))/readyz" > /dev/null && break; sleep 0.1; done
  wait_settled
  echo "node-$n $sig: back and every partition written once after $((SECONDS - t0)) s"
}

most_partitions() {  # the node that writes the most partitions
  local n
  for n in 1 2 3; do
    curl -sf --max-time 5 "http://127.0.0.1:$((PORT + n))/node" |
      python3 -c 'import json,sys; print(len(json.load(sys.stdin)["partitions"]["owned"]), sys.argv[1])' "$n"
  done | sort -rn | head -1 | cut -d' ' -f2
}

wait_settled
# The webhook receiver, and an endpoint for the verifications' events (its secret goes to the
# receiver, which verifies every message with it when its log is read).
mkfifo "$WORK/receiver.in"
node tests/receiver/receiver.mjs < "$WORK/receiver.in" > "$WORK/receiver.out" 2> "$WORK/receiver.err" &
RPID=$!
exec 7> "$WORK/receiver.in"
for _ in $(seq 300); do grep -q '^port=' "$WORK/receiver.out" && break; sleep 0.1; done
RPORT=$(sed -n 's/^port=//p' "$WORK/receiver.out")
[ -n "$RPORT" ] || fail "the webhook receiver did not start"
code=$(curl -s -o "$WORK/hook.json" -w '%{http_code}' -X POST "$FRONT/v1/developer/webhooks" \
  -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -H 'Idempotency-Key: load-hook' \
  -d "{\"url\":\"http://127.0.0.1:$RPORT/ok\",\"events\":[\"verification.*\"]}")
[ "$code" = 201 ] || fail "webhook endpoint: $code $(cat "$WORK/hook.json")"
echo "secret $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["secret"])' "$WORK/hook.json")" >&7
for _ in $(seq 100); do grep -q '^ok' "$WORK/receiver.out" && break; sleep 0.1; done
grep -q '^ok' "$WORK/receiver.out" || fail "the webhook receiver did not take the secret"

python3 tests/cluster/load.py curp "$KEY" 5 $((PORT + 1)) $((PORT + 2)) $((PORT + 3))

load 1 &
L1=$!
load 2 &
L2=$!
python3 tests/cluster/load.py drive "$FRONT" "$KEY" "$WORK" 3 2> "$WORK/load.3.err" &
L3=$!
for n in 1 2 3; do restart "$n" TERM; done  # a rolling restart
restart "$(most_partitions)" KILL           # the node with the most partitions lost, then back
touch "$WORK/stop"
wait "$L1" "$L2"
wait "$L3" || fail "the load client stopped: $(tail -5 "$WORK/load.3.err")"

total=$(cat "$WORK"/codes.* | wc -l)
failed=$(cat "$WORK"/codes.* | grep -cvE '^(POST 201|GET 200)$' || true)
echo "requests through the front: $total, failed: $failed"
[ "$total" -gt 20 ] || fail "too few requests: $total"
if [ "$failed" -ne 0 ]; then
  sort "$WORK"/codes.* | uniq -c >&2
  fail "$failed requests failed at the front"
fi
python3 tests/cluster/load.py check "$FRONT" "$KEY" "$WORK" "$RPORT" $((PORT + 1)) $((PORT + 2)) $((PORT + 3))

# Stopped, each node rebuilds every read model from the log into a scratch store: identical to its
# own, byte for byte, and the same rows on every node.
for n in 1 2 3; do
  pid=$(node_pid "$n")
  kill -TERM "$pid"
  for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
done
for n in 1 2 3; do
  python3 - "$C/node-$n.cmd" > "$WORK/replay.$n.cmd" <<'PY'
import shlex, sys
words = shlex.split(open(sys.argv[1]).read().split(" >> ")[0])[1:]   # without `exec` and the logs
out, skip = [words[0], "replay", "--verify"], {"--listen": 1, "--node-id": 1, "--dev-bootstrap": 0,
                                               "--webhooks-allow-private-urls": 0}
i = 2                                                                # after `svc serve`
while i < len(words):
    if words[i] in skip:
        i += 1 + skip[words[i]]
        continue
    out.append(words[i]); i += 1
print(" ".join(shlex.quote(w) for w in out))
PY
  bash "$WORK/replay.$n.cmd" > "$WORK/replay.$n.json" 2> "$WORK/replay.$n.err" ||
    fail "svc replay --verify on node-$n: $(cat "$WORK/replay.$n.json"; tail -5 "$WORK/replay.$n.err")"
done
python3 - "$WORK"/replay.{1,2,3}.json <<'PY'
import json, sys
rows = [{p["projector"]: p["rows"] for p in json.load(open(f))["projectors"]} for f in sys.argv[1:]]
if any(r != rows[0] for r in rows):
    raise SystemExit(f"FAIL: the nodes' read models differ: {rows}")
print(f"replay --verify: identical on every node; {sum(rows[0].values())} rows in {len(rows[0])} read models each")
PY
