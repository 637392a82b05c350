#!/usr/bin/env bash
# The embedded widget (issue 19's benchmark): its page weight as served (gzip -9 bytes of the
# capture page with its script and style, and of the loader; budget 60 KB for the page, which has
# no camera assets), and the time from the integrator page's navigation to the first interactive
# step (the consent checkbox) in headless Debian chromium, on a fresh browser context each run
# (cold cache), over WIDGET_RUNS embedded sessions: median and worst; and the bytes the service
# sends before the first step, cold and on a repeat mount with the cache warm (ETag: 304s).
#   scripts/bench.d/widget.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
RUNS=${WIDGET_RUNS:-10}
# Installed once (as the receiver in run.sh: never deleted under the browser tests beside it).
[ -d tests/browser/node_modules/playwright-core ] || (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)

start_svc --dev-bootstrap
[ -n "$KEY" ] || { echo "widget: no development key in the server's output" >&2; exit 1; }

# The page weight, as served.
FIRST=$(curl -sf "$BASE/v1/embedded/sessions" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d '{"allowedOrigins":["https://shop.example"]}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
page=0
for path in "/embed/v1/frame/$FIRST" /embed/v1/widget.js /embed/v1/widget.css; do
  raw=$(curl -sf "$BASE$path" | wc -c)
  gz=$(curl -sf "$BASE$path" | gzip -9 | wc -c)
  echo "widget: $path ${raw} bytes, ${gz} gzip"
  page=$((page + gz))
done
loader=$(curl -sf "$BASE/embed/v1/loader.js" | gzip -9 | wc -c)
echo "widget: the capture page (html + js + css): ${page} bytes gzip (budget 61440); the loader: ${loader} bytes gzip"
[ "$page" -le 61440 ] || { echo "widget: over the page weight budget" >&2; exit 1; }
# node-forge, fetched by the e.firma step only (sessions that check e.firma): not part of the page.
forge_raw=$(curl -sf "$BASE/embed/v1/vendor/forge-1.4.3.min.js" | wc -c)
forge_gz=$(curl -sf "$BASE/embed/v1/vendor/forge-1.4.3.min.js" | gzip -9 | wc -c)
echo "widget: the e.firma step's node-forge: ${forge_raw} bytes, ${forge_gz} gzip (loaded on that step only)"

# Mount to the first interactive step.
coproc NODE { node tests/browser/mount_bench.mjs "$BASE"; }
watch_pid $NODE_PID
read -r line <&"${NODE[0]}"
ORIGIN="http://127.0.0.1:${line#port }"
SECRETS=$(python3 - "$BASE" "$KEY" "$ORIGIN" "$RUNS" <<'PY'
import http.client, json, sys
base, key, origin, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
host, port = base.split("//")[1].split(":")
out = []
for i in range(runs + 2):  # two more: the cold and warm mounts whose bytes are counted
    c = http.client.HTTPConnection(host, int(port), timeout=30)
    c.request("POST", "/v1/embedded/sessions", json.dumps({"allowedOrigins": [origin]}),
              {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    r = c.getresponse(); b = json.loads(r.read())
    assert r.status == 201, b
    out.append(b["clientSecret"])
print(json.dumps({"secrets": out}))
PY
)
echo "$SECRETS" >&"${NODE[1]}"
read -r result <&"${NODE[0]}"
python3 - "$result" <<'PY'
import json, statistics, sys
r = json.loads(sys.argv[1])
runs = r["runs"]
print(f"widget: navigation to the first interactive step (headless chromium, cold context), {len(runs)} runs: "
      f"median {statistics.median(runs):.0f} ms, worst {max(runs)} ms")
print(f"widget: bytes from the service before the first step (headers and bodies as sent, gzip): "
      f"cold cache {r['coldBytes']}, repeat mount with the cache warm {r['warmBytes']}")
assert r["warmBytes"] < r["coldBytes"], r
PY
