#!/usr/bin/env bash
# The public topics' publisher (docs/events.md): what it sustains. EVENTS person creations are
# loaded through the real runtime into an embedded log (tests/bench/restart_bench.cc); then
# `svc serve --public-topics` starts on that directory against a dev broker and publishes the whole
# history from the start, in transactions of up to 1,000 events with their resume points. Timed
# from the publisher's first transaction to the admin socket's wait-caught-up; the server's CPU
# over the same interval (/proc), the records and transactions from /metrics.
#   scripts/bench.d/public_topics.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
EVENTS=${PUBLIC_TOPICS_EVENTS:-200000}

now_ms() { date +%s%3N; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
metric() { curl -sf "$BASE/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

"$BUILD/tests/svc_bench_restart" "$WORK/data" "$EVENTS" > "$WORK/load.out"
"$SVC" dev-broker > "$WORK/broker.out" 2>&1 &
watch_pid $!
until grep -q 'bootstrap.servers=' "$WORK/broker.out"; do sleep 0.05; done
brokers=$(grep -o 'bootstrap.servers=[^ ]*' "$WORK/broker.out" | head -1 | cut -d= -f2)
start_svc --public-topics --public-topics-brokers "$brokers"
until [ "$(metric svc_public_topics_transactions_total)" != "0" ]; do sleep 0.01; done
t0=$(now_ms)
c0=$(cpu_ticks "$SVC_PID")
curl -sf -X POST --unix-socket "$WORK/data/admin.sock" -H "Authorization: Bearer $(cat "$WORK/data/service.key")" \
  http://svc/admin/public-topics/wait-caught-up > /dev/null
t1=$(now_ms)
c1=$(cpu_ticks "$SVC_PID")
records=$(metric svc_public_topics_records_total)
transactions=$(metric svc_public_topics_transactions_total)
hz=$(getconf CLK_TCK)
ms=$((t1 - t0))
awk -v r="$records" -v t="$transactions" -v ms="$ms" -v cpu=$((c1 - c0)) -v hz="$hz" 'BEGIN {
  printf "public topics: %d records in %d transactions, %.1f s: %.0f records/s; server CPU %.2f s (%.1f us a record)\n",
    r, t, ms / 1000, r / (ms / 1000), cpu / hz, cpu / hz * 1e6 / r }'
