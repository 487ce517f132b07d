#!/bin/sh
# Issue 16's "done when": `report rent-vs-buy` over the demo fleet's month
# prints a recommendation per GPU type that a computation of this test's
# own, from the job documents and the operator's figures, agrees with to
# the micro-credit.  The fleet is the one `make run` opens, built by the
# same scripts/demo_fleet.py through the command language; only its first
# day is fixed (RIGDECK_DEMO_START) so that the month does not move with
# the calendar.
. tests/batch/lib.sh
export RIGDECK_MASTER_KEY="$TMP/master.key"
START=2026-10-01
SINCE=2026-10-01T00:00:00Z
UNTIL=2026-10-31T00:00:00Z
NOW=2026-10-31T00:05:00Z   # the demo's last command: the month's final bill run
# The demo opens the embedded store (README); on etcd this would build the
# same month again, a minute and a half of the suite's budget, for reports
# whose store part test_reports already runs there.
case "$STORE" in
etcd*) skip "SQLite only: the demo fleet is built in the embedded store; test_reports covers etcd" ;;
esac
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
command -v openssl >/dev/null 2>&1 || skip "openssl is not installed (the demo makes a service-account key)"

case_ "the demo fleet builds"
RIGDECK_DEMO_START=$START python3 scripts/demo_fleet.py "$BIN" "$STORE" >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_out "demo: done"

rd --output json --now $NOW -c "job list"
cp "$OUT" "$TMP/jobs.json"
rd --output json --now $NOW -c "price list"
cp "$OUT" "$TMP/prices.json"

case_ "without a purchase price: demand and cloud cost per type, and what is missing"
rd --output json --now $NOW -c "report rent-vs-buy --since $SINCE --until $UNTIL"
expect_status 0
cp "$OUT" "$TMP/plain.json"

# The operator's figures per type: purchase price (credits), watts.
FIGURES="a100:10000:400 a100-80gb:15000:400 v100:6000:300 t4:2500:70 rtx3090:1500:350 rtx-a6000:4500:300"
for f in $FIGURES; do
    type=${f%%:*} rest=${f#*:}; buy=${rest%%:*} watts=${rest#*:}
    rd --output json --now $NOW -c "report rent-vs-buy --since $SINCE --until $UNTIL --gpu-type $type --buy-price $buy --lifetime 1095d --power-w $watts --power-price 0.15"
    cp "$OUT" "$TMP/own-$type.json"
done

# Table form, for a reader of the test log.
rd --now $NOW -c "report rent-vs-buy --since $SINCE --until $UNTIL --gpu-type a100 --buy-price 10000 --lifetime 1095d --power-w 400 --power-price 0.15"
expect_out "^a100 "
cat "$OUT"

case_ "every type's demand, costs and verdict match a computation from the job documents"
python3 - "$TMP" "$FIGURES" >"$TMP/check" 2>&1 <<'EOF'
import json, sys
from datetime import datetime, timezone

tmp, figures = sys.argv[1], sys.argv[2]
def t(s):
    return int(datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp())
SINCE, UNTIL, NOW = t("2026-10-01T00:00:00Z"), t("2026-10-31T00:00:00Z"), t("2026-10-31T00:05:00Z")
WINDOW = UNTIL - SINCE
ENDED = {"finished", "failed", "stopped", "canceled"}

def inside(a, b):
    return max(0, min(b, UNTIL) - max(a, SINCE))

def rnd(n, d):                      # half away from zero, exact (Python ints)
    q, r = divmod(abs(n), d)
    q += 2 * r >= d
    return q if n >= 0 else -q

used, waited = {}, {}
for job in json.load(open(f"{tmp}/jobs.json"))["items"]:
    x100 = job["resources"].get("gpus_x100") or 0
    for w in job["workers"]:
        typ = w.get("gpu_type") or job["resources"]["gpu_types"][0]
        if typ == "cpu" or x100 == 0:
            continue
        if w.get("started_at"):
            used[typ] = used.get(typ, 0) + x100 * inside(t(w["started_at"]), t(w["ended_at"]) if w.get("ended_at") else NOW)
        end = w.get("placed_at") or w.get("started_at") or w.get("canceled_at")
        end = t(end) if end else (NOW if w["state"] not in ENDED else None)
        if end is not None:
            waited[typ] = waited.get(typ, 0) + x100 * inside(t(job["submitted_at"]), end)
prices = {p["name"]: p["price_ucr"] for p in json.load(open(f"{tmp}/prices.json"))["items"]}

plain = {r["gpu_type"]: r for r in json.load(open(f"{tmp}/plain.json"))["items"]}
types = sorted(k for k in set(used) | set(waited) if used.get(k, 0) + waited.get(k, 0) > 0)
assert sorted(plain) == types, (sorted(plain), types)
for typ in types:
    demand = used.get(typ, 0) + waited.get(typ, 0)
    r = plain[typ]
    assert r["used_gpu_h"] == rnd(used.get(typ, 0), 3600) / 100, (typ, r["used_gpu_h"], used.get(typ))
    assert r["waited_gpu_h"] == rnd(waited.get(typ, 0), 3600) / 100, (typ, r["waited_gpu_h"], waited.get(typ))
    assert r["gpus_needed"] == -(-demand // (100 * WINDOW)), (typ, r["gpus_needed"])
    assert r["cloud_cost_ucr"] == rnd(demand * prices[typ], 360000), (typ, r["cloud_cost_ucr"])
    assert r["own_cost_ucr"] is None and r["cheaper"] is None, r
    assert "needs --buy-price and --lifetime" in r["recommendation"], r["recommendation"]

checked = 0
for f in figures.split():
    typ, buy, watts = f.split(":")
    buy, watts, kwh, life = int(buy) * 10**6, int(watts), 150000, 1095 * 86400
    rows = json.load(open(f"{tmp}/own-{typ}.json"))["items"]
    assert len(rows) == 1 and rows[0]["gpu_type"] == typ, rows
    r = rows[0]
    demand = used.get(typ, 0) + waited.get(typ, 0)
    n = -(-demand // (100 * WINDOW))
    own = rnd(n * buy * WINDOW, life) + rnd(n * watts * WINDOW * kwh, 3600 * 1000)
    cloud = rnd(demand * prices[typ], 360000)
    even = rnd((buy * 3600000 + watts * kwh * life) * 10000, 1000 * life * prices[typ])
    util = rnd(demand * 10000, n * 100 * WINDOW) if n else None
    want = "own" if own < cloud else "cloud" if cloud < own else "either"
    assert (r["own_cost_ucr"], r["cloud_cost_ucr"], r["cheaper"]) == (own, cloud, want), (typ, r, own, cloud, want)
    assert r["break_even_util_pct"] == even / 100 and r["own_util_pct"] == util / 100, (typ, r, even, util)
    # the verdict agrees with the sign of (utilisation - break-even)
    assert (util > even) == (want == "own") or own == cloud, (typ, util, even, want)
    head = f"buy {n} GPU" if want == "own" else "rent: " if want == "cloud" else "either"
    assert r["recommendation"].startswith(head), (typ, r["recommendation"])
    checked += 1
print(f"ok {checked}")
EOF
if grep -q "^ok 6$" "$TMP/check"; then pass; else fail "hand computation differs: $(tail -5 "$TMP/check")"; fi

finish
