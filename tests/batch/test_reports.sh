#!/bin/sh
# report usage and report rent-vs-buy (operations.md; docs/reports.md) on a
# real store: refusals, workers straddling the window's edges, a fractional
# GPU, waiting and canceled workers, money equal to the ledger's to the µcr,
# and the table, JSON and CSV forms.
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched
export RIGDECK_MASTER_KEY="$TMP/master.key"
W="--since 2026-11-02T00:00:00Z --until 2026-11-03T00:00:00Z"
END=2026-11-03T02:00:00Z

at () { t=$1; shift; rd --output json --now "$t" "$@"; }
submit () { t=$1 who=$2 spec=$3; at "$t" --as "$who" -c "job submit $SP/$spec.yaml"; JOB=$(jget id); }

rd -c "account create alice --plan team" -c "account create bob --plan team" \
   -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "node add dc gpu-a --agent none --minion m-a --inventory $INV/a100x4.yaml" -c "node maintenance gpu-a off" \
   -c "node set gpu-a --gpu-sharing on" -c "price set a100 2.78" \
   -c "account deposit alice 100" -c "account deposit bob 100"
rd --as alice -c "provider enable physical" -c "region create alab --provider physical --storage local" \
   -c "node add alab r-1 --agent none --minion m-r1 --inventory $INV/rtx3090x2.yaml" -c "node maintenance r-1 off"
expect_status 0

# A: 1 A100 from 22:00 the day before to 02:00: 2 h inside the window.
submit 2026-11-01T22:00:00Z bob a100-1; A=$JOB
at 2026-11-01T22:00:00Z -c "sched run"
at 2026-11-02T02:00:00Z --as bob -c "job stop $A"
# F: waits (max price below the market) from 06:00, canceled at 08:00: 2 GPU-h waited.
submit 2026-11-02T06:00:00Z bob a100-1-cheap; F=$JOB
at 2026-11-02T08:00:00Z --as bob -c "job stop $F"
# D: waits from 12:00 to the end: 12 GPU-h waited inside the window.
submit 2026-11-02T12:00:00Z bob a100-1-cheap; D=$JOB
# E: alice's own RTX 3090 from 20:00 to 02:00 the next day: 4 h inside.
submit 2026-11-02T20:00:00Z alice rtx-1; E=$JOB
at 2026-11-02T20:00:00Z -c "sched run"
# C: half an A100 from 23:00, still running: 0.5 GPU-h inside.
submit 2026-11-02T23:00:00Z bob half; C=$JOB
at 2026-11-02T23:00:00Z -c "sched run"
at $END --as alice -c "job stop $E"
at $END -c "bill run"
expect_status 0
at $END -c "job show $C"
expect_json workers.0.state running
at $END -c "job show $F"
expect_json workers.0.canceled_at 2026-11-02T08:00:00Z

case_ "refusals name the field and the rule and change nothing"
before=$(snapshot)
rd -c "report usage --since 2026-11-03T00:00:00Z --until 2026-11-02T00:00:00Z"
expect_refused 1 "$before" "\-\-since must be before \-\-until"
rd -c "report usage --since 2026-11-02T00:00:00Z --until 2026-11-02T00:00:00Z"
expect_refused 1 "$before" "\-\-since must be before \-\-until"
rd -c "report usage $W --by project"
expect_refused 1 "$before" "\-\-by must be one of node, region, account, gpu-type, got 'project'"
rd -c "report usage --since yesterday --until 2026-11-02T00:00:00Z"
expect_refused 1 "$before" "\-\-since"
rd -c "report usage --until 2026-11-02T00:00:00Z"
expect_refused 2 "$before" "option \-\-since TIME is required"
rd -c "report rent-vs-buy $W --buy-price 10000"
expect_refused 1 "$before" "\-\-buy-price needs \-\-lifetime"
rd -c "report rent-vs-buy $W --lifetime 1095d"
expect_refused 1 "$before" "\-\-lifetime needs \-\-buy-price"
rd -c "report rent-vs-buy $W --buy-price -5 --lifetime 1095d"
expect_refused 1 "$before" "\-\-buy-price"
rd -c "report rent-vs-buy $W --buy-price 10000 --lifetime -3d"
expect_refused 1 "$before" "\-\-lifetime"
rd -c "report rent-vs-buy $W --buy-price 10000 --lifetime 1095d --power-w 400"
expect_refused 1 "$before" "\-\-power-w needs \-\-power-price"
rd -c "report rent-vs-buy $W --power-w -400 --power-price 0.2"
expect_refused 1 "$before" "\-\-power-w"
rd -c "report rent-vs-buy $W --power-w 400 --power-price -0.2"
expect_refused 1 "$before" "\-\-power-price"
rd -c "report rent-vs-buy $W --gpu-type z9"
expect_refused 1 "$before" "\-\-gpu-type"
rd -c "report rent-vs-buy $W --gpu-type cpu"
expect_refused 1 "$before" "CPU-only work has no GPUs to buy"

case_ "usage by node: workers clipped at both edges, a fractional GPU, money from the ledger"
at $END -c "report usage $W"
expect_json items.len 3
expect_json items.0.node gpu-a
expect_json items.0.allocated_gpu_h 2.5
expect_json items.1.node r-1
expect_json items.1.allocated_gpu_h 4.0
expect_json items.2.node "(total)"
expect_json items.2.allocated_gpu_h 6.5
# A's hours ending 00:00, 01:00, 02:00 (2.78 each; the host earns 1.265);
# E's ending 21:00, 22:00, 23:00 (usage fee 0.05); C's first hour ends at
# 00:00 the next day, after the window.
expect_json items.0.spent_ucr 8340000
expect_json items.0.earned_ucr 3795000
expect_json items.1.spent_ucr 150000
expect_json items.2.spent_ucr 8490000
expect_json items.2.earned_ucr 3795000
expect_json items.0.busy_gpu_h null
cp "$OUT" "$TMP/by-node.json"

case_ "the money is the ledger's, to the micro-credit"
at $END -c "ledger entries --since 2026-11-02T00:00:00Z --until 2026-11-03T00:00:00Z"
python3 - "$OUT" "$TMP/by-node.json" >"$TMP/money" 2>&1 <<'EOF'
import json, sys
entries = json.load(open(sys.argv[1]))["items"]
total = json.load(open(sys.argv[2]))["items"][-1]
kinds = ("usage_fee", "gpu_rental", "federated_fee")
inside = [e for e in entries if e["kind"] in kinds and e["at"] < "2026-11-03T00:00:00Z"]
spent = sum(e["amount_ucr"] for e in inside if e["debit"].startswith("wallet:"))
spent -= sum(e["amount_ucr"] for e in inside if e["credit"].startswith("wallet:"))
earned = sum(e["amount_ucr"] for e in inside if e["credit"].startswith("earnings:"))
assert (spent, earned) == (total["spent_ucr"], total["earned_ucr"]), (spent, earned, total)
print("ok")
EOF
if [ "$(cat "$TMP/money")" = ok ]; then pass; else fail "ledger and report differ: $(cat "$TMP/money")"; fi

case_ "a tenant's reports cover only its own workers, wallet and earnings"
at $END --as bob -c "report usage $W"
expect_json items.len 2
expect_json items.0.node gpu-a
expect_json items.0.allocated_gpu_h 2.5
expect_json items.0.spent_ucr 8340000
expect_json items.0.earned_ucr 0
expect_json items.1.node "(total)"
expect_no_out r-1
at $END --as bob -c "report usage $W --by account"
expect_json items.len 2
expect_json items.0.account bob
expect_no_out alice
expect_no_out default
at $END --as alice -c "report usage $W"
expect_json items.len 2
expect_json items.0.node r-1
expect_json items.0.allocated_gpu_h 4.0
expect_json items.0.spent_ucr 150000
expect_no_out gpu-a
at $END --as alice -c "report rent-vs-buy $W"
expect_json items.len 1
expect_json items.0.gpu_type rtx3090

case_ "usage by account, region and GPU type"
at $END -c "report usage $W --by account"
expect_json items.0.account alice
expect_json items.0.allocated_gpu_h 4.0
expect_json items.0.spent_ucr 150000
expect_json items.1.account bob
expect_json items.1.allocated_gpu_h 2.5
expect_json items.1.spent_ucr 8340000
expect_json items.2.account default
expect_json items.2.earned_ucr 3795000
at $END -c "report usage $W --by region"
expect_json items.0.region alab
expect_json items.1.region dc
expect_json items.1.allocated_gpu_h 2.5
at $END -c "report usage $W --by gpu-type"
expect_json items.0.gpu_type a100
expect_json items.1.gpu_type rtx3090
expect_json items.1.allocated_gpu_h 4.0

case_ "usage as a table: money in credits, unknown busy time as -"
rd --now $END -c "report usage $W"
expect_out "^NODE *ALLOCATED_GPU_H *BUSY_GPU_H *UTIL_PCT *UNALLOCATED_BUSY_GPU_H *SPENT *EARNED"
expect_out "^gpu-a *2.5 *- *- *- *8.34 *3.795$"
expect_out "^(total) *6.5 *- *- *- *8.49 *3.795$"

case_ "usage as CSV: a header and one RFC 4180 row per group"
rd --now $END --output csv -c "report usage $W --by account"
expect_status 0
python3 - "$OUT" >"$TMP/csv" 2>&1 <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["account", "allocated_gpu_h", "busy_gpu_h", "util_pct", "unallocated_busy_gpu_h", "spent",
                   "earned"], rows[0]
assert rows[1] == ["alice", "4", "", "", "", "0.15", "0"], rows[1]
assert rows[-1][0] == "(total)" and rows[-1][5] == "8.49", rows[-1]
print("ok")
EOF
if [ "$(cat "$TMP/csv")" = ok ]; then pass; else fail "csv: $(cat "$TMP/csv")"; fi

case_ "rent-vs-buy: demand is what ran plus what waited; costed from the operator's numbers"
at $END -c "report rent-vs-buy $W"
expect_json items.len 2
expect_json items.0.gpu_type rtx3090
expect_json items.0.demand_gpu_h 4.0
expect_json items.0.cloud_cost_ucr null
expect_out "no market price for rtx3090"
expect_json items.1.gpu_type a100
expect_json items.1.used_gpu_h 2.5
expect_json items.1.waited_gpu_h 14.0
expect_json items.1.demand_gpu_h 16.5
expect_json items.1.gpus_needed 1
expect_json items.1.own_util_pct 68.75
expect_json items.1.cloud_cost_ucr 45870000
expect_json items.1.own_cost_ucr null
expect_json items.1.cheaper null
expect_json items.1.recommendation "cloud costs 45.87 credits; own hardware needs --buy-price and --lifetime to be costed"
# 1 GPU: 10000 / 1095 days for one day = 9.132420; 400 W for 24 h at 0.2 = 1.92.
at $END -c "report rent-vs-buy $W --gpu-type a100 --buy-price 10000 --lifetime 1095d --power-w 400 --power-price 0.2"
expect_json items.len 1
expect_json items.0.own_purchase_ucr 9132420
expect_json items.0.own_power_ucr 1920000
expect_json items.0.own_cost_ucr 11052420
expect_json items.0.break_even_util_pct 16.57
expect_json items.0.cheaper own
expect_out "buy 1 GPU: own 11.05242 vs cloud 45.87 credits; 68.75% busy, above the 16.57% break-even"
at $END -c "report rent-vs-buy $W --gpu-type t4"
expect_json items.0.demand_gpu_h 0.0
expect_out "no demand for t4 in the window"

case_ "rent-vs-buy as CSV and as a table"
rd --now $END --output csv -c "report rent-vs-buy $W --gpu-type a100 --buy-price 10000 --lifetime 1095d"
python3 - "$OUT" >"$TMP/csv" 2>&1 <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0][:3] == ["gpu_type", "demand_gpu_h", "used_gpu_h"] and rows[0][-1] == "recommendation", rows[0]
row = dict(zip(rows[0], rows[1]))
assert row["own_cost"] == "9.13242" and row["cloud_cost"] == "45.87" and row["cheaper"] == "own", row
print("ok")
EOF
if [ "$(cat "$TMP/csv")" = ok ]; then pass; else fail "csv: $(cat "$TMP/csv")"; fi
rd --now $END -c "report rent-vs-buy $W --gpu-type a100"
expect_out "^GPU_TYPE *DEMAND_GPU_H .*CLOUD_PRICE_PER_GPU_H *CLOUD_COST *BREAK_EVEN_UTIL_PCT *CHEAPER *RECOMMENDATION"
expect_out "^a100 *16.5 *2.5 *14 *1 *68.75 *- *2.78 *45.87 "

case_ "CSV is a batch format: the console refuses it"
case_ "usage never measures more than was allocated: busy on GPUs nobody held is its own column"
# gpu-m: 4 A100s all 100 % busy for an hour, one of them held by a worker.
# Busy time while held is 1 GPU-hour (100 %), the other 3 are unallocated
# (counted against the one allocated GPU-hour, that was 400 %).
M0=2026-11-05T00:00:00Z M1=2026-11-05T01:00:00Z
rd --now $M0 -c "region create mdc --provider physical --storage local" \
   -c "node add mdc gpu-m --agent none --minion m-m --inventory $INV/a100x4.yaml" -c "node maintenance gpu-m off" \
   -c "account deposit default 100" -c "node maintenance gpu-a on"
submit $M0 default a100-1; MJ=$JOB
at $M0 -c "sched run"
at $M0 -c "job show $MJ"
expect_json workers.0.node gpu-m
python3 - >"$TMP/busy.jsonl" <<'PY'
import json
for m in range(60):
    print(json.dumps({"t": "2026-11-05T00:%02d:00Z" % m,
                      "gpus": [{"index": g, "gpu_util": 100} for g in range(4)]}))
PY
rd --now $M1 -c "metrics import gpu-m $TMP/busy.jsonl"
expect_status 0
at $M1 -c "report usage --since $M0 --until $M1 --by node"
python3 - "$OUT" >"$TMP/m" 2>&1 <<'PY'
import json, sys
rows = {r["node"]: r for r in json.load(open(sys.argv[1]))["items"]}
m = rows["gpu-m"]
assert (m["allocated_gpu_h"], m["busy_gpu_h"], m["util_pct"], m["unallocated_busy_gpu_h"]) == (1, 1, 100, 3), m
assert all(r["util_pct"] is None or r["util_pct"] <= 100 for r in rows.values()), rows
print("ok")
PY
if [ "$(cat "$TMP/m")" = ok ]; then pass; else fail "by node: $(cat "$TMP/m")"; fi
for by in region gpu-type account; do
    at $M1 -c "report usage --since $M0 --until $M1 --by $by"
    python3 - "$OUT" "$by" >"$TMP/m" 2>&1 <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
assert all(r["util_pct"] is None or r["util_pct"] <= 100 for r in items), items
t = items[-1]
# (total): bob's half GPU on gpu-a (no readings) is allocated too
assert (t["allocated_gpu_h"], t["busy_gpu_h"], t["unallocated_busy_gpu_h"], t["util_pct"]) == (1.5, 1, 3, 66.67), t
print("ok")
PY
    if [ "$(cat "$TMP/m")" = ok ]; then pass; else fail "by $by: $(cat "$TMP/m")"; fi
done

case_ "help report usage says what each column means"
COLUMNS=1000 rd -c "help report usage"
for col in allocated_gpu_h busy_gpu_h util_pct unallocated_busy_gpu_h spent earned; do
    expect_out "^  $col  *[a-zA-Z(]"
done
expect_out "^  util_pct  *busy_gpu_h / allocated_gpu_h x 100: .*never above 100"

$WRAP "$BIN" --store "$STORE" --output csv >"$OUT" 2>"$ERR" </dev/null; RC=$?
expect_status 2
expect_err "\-\-output csv needs \-\-batch"

finish
