#!/usr/bin/env bash
# Runs every benchmark with the binaries of a build directory: scripts/bench (Release, full
# sizes) and scripts/test (its sanitizer build, BENCH_SMOKE=1: tiny sizes, so that every part is
# known to start and finish; its numbers mean nothing).
#   scripts/bench.d/run.sh BUILD_DIR [all|node|cluster]
# `node`: the parts on one node; `cluster`: the parts on the dev broker's cluster (two smoke runs
# that ctest can run side by side). Default: all, in that order.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build-release}
PARTS=${2:-all}
case "$PARTS" in all|node|cluster) ;; *) echo "usage: $0 BUILD_DIR [all|node|cluster]" >&2; exit 2 ;; esac
if [ "${BENCH_SMOKE:-0}" = 1 ]; then
  CALLERS=4 EVENTS=2000 FACES=1 WEBHOOKS=20 SECONDS_EACH=1 AUDIT=3000 PURGES=1 PURGE_SESSIONS=2 IMPORTS=200
  REVIEW_CASES=200 SCREEN_NAMES=2000 SCREEN_PORTFOLIO=200 WIDGET_RUNS=1 RESTART_EVENTS=2000 BLOB_MIB=1 BLOB_RUNS=1
  CONSOLE_CASES=2 PAD_ATTEMPTS=1 NAME_CARDS=1 HOSTILE_UPLOADS=4 HOSTILE_MIB=2 STALLERS=10
  CLUSTER_RUNS=1 CLUSTER_TENANTS=4 WORKER_SESSIONS=2 WORKER_ENGINE=model-free OVERHEAD_SECONDS=1 TIMESTAMPS=3 EFIRMA_CHECKS=3
  PUBLIC_EVENTS=2000
  HISTORY_SECONDS=0  # ctest runs the history checker's 60-s run itself (integration.cluster_history)
else
  CALLERS=${BENCH_CALLERS:-256} EVENTS=${BENCH_EVENTS:-1000000} FACES=20 WEBHOOKS=${BENCH_WEBHOOKS:-10000}
  SECONDS_EACH=${BENCH_SECONDS:-10} AUDIT=${BENCH_AUDIT:-1000000} PURGES=${BENCH_PURGES:-5} PURGE_SESSIONS=10 IMPORTS=${BENCH_IMPORTS:-10000}
  REVIEW_CASES=${BENCH_REVIEW_CASES:-100000} SCREEN_NAMES=${BENCH_SCREEN_NAMES:-50000}
  SCREEN_PORTFOLIO=${BENCH_SCREEN_PORTFOLIO:-10000} WIDGET_RUNS=${BENCH_WIDGET_RUNS:-10}
  CONSOLE_CASES=${BENCH_CONSOLE_CASES:-20} PAD_ATTEMPTS=${BENCH_PAD_ATTEMPTS:-50}
  NAME_CARDS=${BENCH_NAME_CARDS:-25} HOSTILE_UPLOADS=${BENCH_HOSTILE_UPLOADS:-32} HOSTILE_MIB=30 STALLERS=40
  RESTART_EVENTS=${BENCH_RESTART_EVENTS:-1000000} BLOB_MIB=${BENCH_BLOB_MIB:-20} BLOB_RUNS=${BENCH_BLOB_RUNS:-5}
  CLUSTER_RUNS=${BENCH_CLUSTER_RUNS:-5} CLUSTER_TENANTS=16 WORKER_SESSIONS=${BENCH_WORKER_SESSIONS:-24} WORKER_ENGINE=dlib OVERHEAD_SECONDS=$SECONDS_EACH
  TIMESTAMPS=${BENCH_TIMESTAMPS:-200} EFIRMA_CHECKS=${BENCH_EFIRMA_CHECKS:-200} PUBLIC_EVENTS=${BENCH_PUBLIC_EVENTS:-200000}
  HISTORY_SECONDS=${BENCH_HISTORY_SECONDS:-600}
fi
if [ "$PARTS" != cluster ]; then
# The write side and replay.
"$BUILD/tests/svc_bench" "${BENCH_DIR:-${TMPDIR:-/tmp}/svc-bench}" "$CALLERS" "$EVENTS"
# HTTP: nginx as the ceiling, then GET, a list page and durable creates.
BENCH_SECONDS=$SECONDS_EACH SVC_BIN="$BUILD/api/svc" scripts/bench.d/http.sh
# Open-loop latency at 25, 50 and 75 % of each operation's closed-loop maximum (no coordinated
# omission): GET, list, session create, person create.
# The smoke run keeps the settling and the warm-up short (a sanitizer build compacts slowly) and
# measures at 50 % only: every operation and every step of the script, a third of the load (CI time,
# issue 70: 46 s and 56 s of CPU with the three levels on the sanitizer build).
if [ "${BENCH_SMOKE:-0}" = 1 ]; then export OPEN_LOOP_WARMUP_SECONDS=1 OPEN_LOOP_SETTLE_SECONDS=5 OPEN_LOOP_PERCENTS=50; fi
BENCH_SECONDS=$SECONDS_EACH scripts/bench.d/open_loop.sh "$BUILD"
# Face work per verification (dlib engine): CPU, sustained rate, peak memory.
"$BUILD/tests/svc_bench_faces" models/node_modules/@vladmandic/face-api "${TMPDIR:-/tmp}/svc-faces-bench" "$FACES"
# Attack detection (ISO/IEC 30107-3 form): APCER per attack species, BPCER, the worst species, on
# the attack set made from the packages' photographs (seed 2; the thresholds were set on seed 1).
"$BUILD/tests/svc_bench_pad" models/node_modules/@vladmandic/face-api "${TMPDIR:-/tmp}/svc-pad-bench" "$PAD_ATTEMPTS" 2
# The names an INE gives the vault: composed cards, clean and degraded (right, wrong, none).
"$BUILD/tests/svc_bench_names" models/node_modules/@vladmandic/face-api "$NAME_CARDS" 2
# Webhook deliveries: queued deliveries to a local receiver answering 200, drained.
# Installed once (scripts/test installs it first: a second `npm ci` would delete node_modules under
# the webhook tests that ctest runs beside this smoke run).
[ -d tests/receiver/node_modules/standardwebhooks ] || (cd tests/receiver && npm ci --no-audit --no-fund --loglevel=error)
"$BUILD/tests/svc_bench_webhooks" "$WEBHOOKS"
# The access log: projection rate, checkpoint and proofs, and `svc audit verify` over an export
# of every entry (in process, then the binary itself on the same file).
AUDIT_DIR="${TMPDIR:-/tmp}/svc-audit-bench"
"$BUILD/tests/svc_bench_audit" "$AUDIT_DIR" "$AUDIT"
TIMEFORMAT="audit: svc audit verify (the binary, every core, process start included): %Rs"
time "$BUILD/api/svc" audit verify "$AUDIT_DIR/export.jsonl" >/dev/null
rm -rf "$AUDIT_DIR"
# The vault: bulk import (persons/s), the bulk export of every person (persons/s), then the ARCO
# purge of a person with 10 approved sessions
# (4 captures each), forgotten with mode purge, timed until the deletion certificate is issued.
"$BUILD/tests/svc_bench_persons" "$PURGES" "$PURGE_SESSIONS" "$IMPORTS"
# The review queue: a page of 20 at REVIEW_CASES open cases against nginx serving the same body,
# and claims under contention.
REVIEW_CASES=$REVIEW_CASES BENCH_SECONDS=$SECONDS_EACH scripts/bench.d/review.sh "$BUILD"
# Screening: one name against SCREEN_NAMES list names (p50, p99), and a portfolio run (names/s).
"$BUILD/tests/svc_bench_screening" "$SCREEN_NAMES" "$SCREEN_PORTFOLIO"
# AML through the service: the list loaded with svc aml load, the portfolio enrolled through
# POST /v1/screenings and run through the API.
AML_LIST_NAMES=$SCREEN_NAMES AML_PORTFOLIO=$SCREEN_PORTFOLIO scripts/bench.d/aml.sh "$BUILD"
# The embedded widget: page weight as served (gzip) and navigation to the first interactive step
# in headless chromium.
WIDGET_RUNS=$WIDGET_RUNS scripts/bench.d/widget.sh "$BUILD"
# The review console worked with the keyboard alone: CONSOLE_CASES cases opened by real sandbox
# verifications, n, c, a, Enter each, in headless chromium.
CONSOLE_CASES=$CONSOLE_CASES scripts/bench.d/console.sh "$BUILD"
# Trusted timestamps: submit -> verdict without and with the local TSA, and verdict -> a
# certificate with its RFC 3161 token (p50, p99).
"$BUILD/tests/svc_bench_timestamps" "$TIMESTAMPS"
# e.firma possession proofs: chain + signature, then with OCSP to the local responder (p50, p99).
"$BUILD/tests/svc_bench_efirma" "$EFIRMA_CHECKS"
# Restart after a crash and after a clean stop, RESTART_EVENTS events, both log backends: time to
# the first answer (/readyz 200).
RESTART_EVENTS=$RESTART_EVENTS scripts/bench.d/restart.sh "$BUILD"
# The public topics' publisher (docs/events.md): a log of PUBLIC_EVENTS person creations published
# from the start to the dev broker's topics, exactly once: records/s and the server's CPU a record.
PUBLIC_TOPICS_EVENTS=$PUBLIC_EVENTS scripts/bench.d/public_topics.sh "$BUILD"
# Captures on the data directory and on an S3 bucket: a BLOB_MIB MiB upload and its view through a
# media link (throughput, time to first byte, the server's peak RSS above idle), and a whole
# verification on each backend.
BLOB_MIB=$BLOB_MIB BLOB_RUNS=$BLOB_RUNS scripts/bench.d/blobs.sh "$BUILD"
# Hostile uploads (issue 68): the server's peak memory under HOSTILE_UPLOADS concurrent
# HOSTILE_MIB MiB uploads, and another tenant's capture under a stalled-upload attack.
HOSTILE_UPLOADS=$HOSTILE_UPLOADS HOSTILE_MIB=$HOSTILE_MIB STALLERS=$STALLERS scripts/bench.d/uploads.sh "$BUILD"
fi
[ "$PARTS" = node ] && exit 0
# The cluster on Kafka: two writer nodes on the dev broker; the time partitions go without a writer
# after a clean stop and after a kill -9 of one node.
CLUSTER_RUNS=$CLUSTER_RUNS CLUSTER_TENANTS=$CLUSTER_TENANTS scripts/bench.d/cluster.sh "$BUILD"
# Verification work on workers: WORKER_SESSIONS full verifications of the sample captures with one
# and with two workers (`--roles projector,worker`, the dlib engine), each pinned to one core.
WORKER_SESSIONS=$WORKER_SESSIONS WORKER_ENGINE=$WORKER_ENGINE scripts/bench.d/workers.sh "$BUILD"
# The cluster's overhead per request: server CPU per GET, list page and create on a cluster of one
# node and of three, and creates/s through nginx in front of each.
OVERHEAD_SECONDS=$OVERHEAD_SECONDS scripts/bench.d/overhead.sh "$BUILD"
# The history checker (issue 67) for HISTORY_SECONDS: three nodes under kill -9, pauses past the
# session, a network cut, a paused broker and two wrong clocks; its counts, and 0 violations.
if [ "$HISTORY_SECONDS" -gt 0 ]; then
  echo "== history checker, $HISTORY_SECONDS s (tests/cluster/history.py)"
  python3 tests/cluster/history.py "$BUILD/svc" --seconds "$HISTORY_SECONDS" --report "$BUILD/history-report.json"
fi
