#!/usr/bin/env bash
# AML through the service, end to end (issue 18's benchmark): a synthetic list of NAMES names in
# OpenSanctions' targets.simple.csv format loaded with `svc aml load` (through the running
# server's admin socket: read, checked, kept, and the index rebuilt), PORTFOLIO persons' names
# screened into a portfolio through POST /v1/screenings (8 clients), then one portfolio run
# through POST /v1/monitoring/portfolios/{id}/run: every subject screened again and recorded
# (a screening each, its hits found): subjects/s.
#   scripts/bench.d/aml.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench.d/lib.sh
NAMES=${AML_LIST_NAMES:-50000}
PORTFOLIO=${AML_PORTFOLIO:-10000}

python3 - "$WORK" "$NAMES" "$PORTFOLIO" <<'PY'
import csv, random, sys
work, names, portfolio = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# The very pools of tests/bench/screening_bench.cc (60 given names, 160 surnames), read from it.
import re
src = open("tests/bench/screening_bench.cc", encoding="utf-8").read()
def pool(name):
    body = re.search(r"const std::vector<std::string> " + name + r" = \{(.*?)\};", src, re.S).group(1)
    return re.findall(r'"([^"]+)"', body)
given, surnames = pool("kGiven"), pool("kSurnames")
assert len(given) >= 50 and len(surnames) >= 150, (len(given), len(surnames))
rng = random.Random(18)
def name():
    g = rng.choice(given) + ("" if rng.random() < 2 / 3 else " " + rng.choice(given))
    return f"{g} {rng.choice(surnames)} {rng.choice(surnames)}"
with open(f"{work}/list.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "schema", "name", "aliases", "birth_date", "countries", "addresses", "identifiers", "sanctions",
                "phones", "emails", "dataset", "first_seen", "last_seen", "last_change"])
    for i in range(names):
        w.writerow([f"bench-{i}", "Person", name(), "", f"{rng.randint(1940, 2000)}", "mx", "", "", "Bench sanctions",
                    "", "", "Bench list", "2026-01-01", "2026-11-01", "2026-01-01"])
with open(f"{work}/portfolio.txt", "w") as f:
    for i in range(portfolio):
        f.write(name() + "\n")
PY

start_svc --dev-bootstrap
[ -n "$KEY" ] || { echo "aml: no development key in the server's output" >&2; exit 1; }

T0=$(date +%s.%N)
$SVC aml load "$WORK/list.csv" --format opensanctions_csv --source bench --data-dir "$WORK/data" > "$WORK/load.json"
T1=$(date +%s.%N)
python3 - "$PORT" "$KEY" "$WORK" "$NAMES" "$PORTFOLIO" "$T0" "$T1" <<'PY'
import http.client, json, sys, threading, time
port, key, work, names, portfolio, t0, t1 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
load = json.load(open(f"{work}/load.json"))
assert load["entries"] == names, load
print(f"aml: svc aml load of {names} names (read, checked, kept, index rebuilt): {t1 - t0:.1f} s")
people = [l.strip() for l in open(f"{work}/portfolio.txt")]
headers = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}
errors, lock = [], threading.Lock()
def enrol(part):
    c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
    for n in part:
        c.request("POST", "/v1/screenings", json.dumps({"subjectType": "name", "name": n, "kind": "person",
                                                        "portfolioId": "bench"}), headers)
        r = c.getresponse(); body = r.read()
        if r.status != 201:
            with lock: errors.append((r.status, body[:200]))
start = time.time()
threads = [threading.Thread(target=enrol, args=(people[i::8],)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
enrolled = time.time() - start
assert not errors, errors[:3]
print(f"aml: {portfolio} screenings (POST /v1/screenings, 8 clients, each recorded): {portfolio / enrolled:.0f}/s")
c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=600)
start = time.time()
c.request("POST", "/v1/monitoring/portfolios/bench/run", "", {"Authorization": "Bearer " + key})
r = c.getresponse(); run = json.loads(r.read())
took = time.time() - start
assert r.status == 200, run
assert run["subjects"] == len(set(people)), run  # a name screened twice is one subject
print(f"aml: portfolio run over {run['subjects']} persons against {names} list names: {took:.1f} s, "
      f"{run['namesScreened'] / took:.0f} names/s, {run['hits']} hits ({len(run['newHits'])} new)")
PY
