#!/bin/sh
# Bill runs too large for one store txn, and bill runs killed at random
# points, with usage charges (usage fee, rental split host/platform,
# federated fee), device fees and payouts.  A bill run commits in steps of
# at most 100 keys (etcd takes at most 128 ops in one txn), each a whole
# number of transfer groups; every step is idempotent by transfer id, so
# the next run completes exactly what a killed one left.
. tests/batch/lib.sh
INV=tests/inventories
export RIGDECK_MASTER_KEY="$TMP/master.key"

# spec NAME WORKERS: a training job of WORKERS one-A100 workers.
spec () {
    cat >"$TMP/$1.yaml" <<YAML
name: $1
type: training
resources:
  gpu_types: [a100]
  gpu_count: 1
  max_price: 3
  disk_size: 50
workers:
  count: $2
  commands: ["python train.py"]
environment:
  python: "3.9"
  framework: pytorch
YAML
}

# fleet: a public region "dc" of $1 four-A100 nodes hosted by the default
# account (renters pay 2.78), alice's private region "alab" of $2 nodes,
# carol's edge region with $3 devices added at $4; deposits.
fleet () {
    set -- "$1" "$2" "$3" "$4" "$5"
    cmds="-c 'account create alice --plan team' -c 'account create bob --plan team' -c 'account create carol --plan team'"
    cmds="$cmds -c 'provider enable physical' -c 'region create dc --provider physical --storage local --public'"
    cmds="$cmds -c 'price set a100 2.78' -c 'account deposit alice 100' -c 'account deposit bob 1000'"
    n=0; while [ $n -lt "$1" ]; do cmds="$cmds -c 'node add dc d-$n --agent none --minion md-$n --inventory $INV/a100x4.yaml' -c 'node maintenance d-$n off'"; n=$((n + 1)); done
    eval "$5 --now $4 $cmds"
    cmds="-c 'provider enable physical' -c 'region create alab --provider physical --storage local'"
    cmds="$cmds -c 'project create vision' -c 'project share vision bob'"
    n=0; while [ $n -lt "$2" ]; do cmds="$cmds -c 'node add alab a-$n --agent none --minion ma-$n --inventory $INV/a100x4.yaml' -c 'node maintenance a-$n off'"; n=$((n + 1)); done
    eval "$5 --as alice --now $4 $cmds"
    cmds="-c 'provider enable physical' -c 'region create edge --provider physical --storage central'"
    cmds="$cmds -c 'node add edge st-9 --agent none --minion m-st9 --role storage --inventory $INV/storage.yaml'"
    n=0; while [ $n -lt "$3" ]; do cmds="$cmds -c 'device add edge e-$n --minion e-$n --model jetson-orin-nano'"; n=$((n + 1)); done
    eval "$5 --as carol --now $4 $cmds"
}

# Expected device fees: D devices every day from FIRST through LAST (UTC).
device_fees () {
    python3 - "$1" "$2" "$3" <<'PY'
import calendar, datetime, sys
d, first, last = int(sys.argv[1]), datetime.date.fromisoformat(sys.argv[2]), datetime.date.fromisoformat(sys.argv[3])
total = 0
while first <= last:
    dim = calendar.monthrange(first.year, first.month)[1]
    n, r = divmod(15000000 * d, dim)
    total += n + (1 if 2 * r >= dim else 0)
    first += datetime.timedelta(days=1)
print(total)
PY
}

bal () { $1 --output json -c "ledger balance $2"; jget "${3:-balance_ucr}"; }
check () { if [ "$2" = "$3" ]; then pass; else fail "$1: expected $3, got $2"; fi; }

case_ "one bill run of 300 device-days and 192 worker-hours commits in steps of at most 100 keys"
fleet 2 2 1 2026-01-01T00:00:00Z rd
expect_status 0
spec rent 8
spec shared 8
rd --as bob --now 2026-11-01T18:00:00Z -c "job submit $TMP/rent.yaml"
rd --now 2026-11-01T18:00:00Z -c "sched run"
rd --as bob --now 2026-11-01T18:00:00Z -c "job submit $TMP/shared.yaml --project alice/vision"
rd --now 2026-11-01T18:00:00Z -c "sched run"
rd --output json -c "job list"
running=$(jget items | python3 -c "import json,sys; print(sum(len(j.get('workers', [])) for j in json.load(sys.stdin) if j['state'] == 'running'))")
check "running workers" "$running" 16
rd --output json --now 2026-11-02T06:00:00Z -c "bill run"
expect_status 0
expect_json usage_jobs 2
expect_json device_fees 305
expect_json payouts 1
rd --output json -c "audit list"
steps=$(jget items | python3 -c "
import json, sys
runs = [a for a in json.load(sys.stdin) if a['command'].startswith('bill run')]
print(len(runs), max(len(a['changes']) for a in runs))")
set -- $steps
[ "$1" -ge 5 ] && pass || fail "the run committed in $1 step(s); expected several"
[ "$2" -le 100 ] && pass || fail "a step wrote $2 keys; at most 100 fit etcd's txn with the audit record"
# 12 hours of 8 rented A100s and of 8 shared ones, 305 device-days.
check "bob" "$(bal rd bob)" $((1000000000 - 8 * 12 * 2780000 - 8 * 12 * 2650000))
check "alice" "$(bal rd alice)" $((100000000 - 8 * 12 * 250000))
# The payout at 00:00 counts the 5 spans that ended before it (18:00-23:00).
check "default wallet (payout of 5 hours)" "$(bal rd default)" $((8 * 5 * 1265000))
check "default earnings" "$(bal rd default earnings_ucr)" $((8 * 7 * 1265000))
check "carol" "$(bal rd carol)" "-$(device_fees 1 2026-01-01 2026-11-01)"
rd --output json -c "ledger verify"
expect_status 0
expect_json transfers $((2 + 8 * 12 * 2 * 2 + 305 + 1))
rd --output json --now 2026-11-02T06:00:00Z -c "bill run"
expect_json posted 0
expect_json usage_jobs 0

case_ "kill -9 of bill run at random points, 50 times (after one timed run), with usage, rentals, federated fees, device fees and payouts"
CRASH="sqlite:$TMP/crash.db"
rdc () { $WRAP "$BIN" --batch --store "$CRASH" "$@" >"$OUT" 2>"$ERR"; RC=$?; }
fleet 1 2 12 2026-11-01T00:00:00Z rdc
expect_status 0
spec rent 4
spec shared 4
spec own 2
T0=2026-11-01T00:00:00Z
at () { date -u -d "2026-11-01 00:00:00 UTC + $1 minutes" +%Y-%m-%dT%H:%M:%SZ; }
# R: bob rents the 4 public A100s; S: bob's job in alice's shared project on
# alice's own capacity (usage fee to alice, federated fee to bob); Q: alice's
# own job, stopped after 2.5 hours (the stop posts its charges).
rdc --as bob --output json --now $T0 -c "job submit $TMP/rent.yaml"; R=$(jget id)
rdc --now $T0 -c "sched run"
rdc --as bob --output json --now $T0 -c "job submit $TMP/shared.yaml --project alice/vision"; S=$(jget id)
rdc --as alice --output json --now $T0 -c "job submit $TMP/own.yaml"; Q=$(jget id)
rdc --now $T0 -c "sched run"
rdc --output json -c "job list"
states=$(jget items | python3 -c "import json,sys; print(' '.join(j['state'] for j in json.load(sys.stdin)))")
check "jobs placed" "$states" "running running running"
rdc --as alice --now "$(at 150)" -c "job stop $Q"
expect_status 0
i=1
killed=0
while [ "$i" -le 51 ]; do
    # each run has 6 hours of new charges (several steps), and a day's fee
    # and payout now and then; it dies before, between or after its steps
    now=$(at $((150 + 360 * i)))
    t1=$(date +%s%N)
    "$BIN" --batch --store "$CRASH" --now "$now" -c "bill run" >/dev/null 2>&1 &
    pid=$!
    if [ "$i" -gt 1 ]; then
        r=$(( $(od -An -N4 -tu4 /dev/urandom) % span ))
        sleep "$(printf '%d.%06d' $((r / 1000000)) $((r % 1000000)))"
        kill -9 "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
    st=$?
    [ $st = 137 ] && killed=$((killed + 1))
    # the first run is left to finish: how long one takes sets the range
    # of the random kill times (up to 1.5 times that); a later run that
    # finished before its kill time narrows the range to 1.5 times that
    # time, so that a slow first run (a busy machine) cannot spoil the test
    took=$(( ($(date +%s%N) - t1) * 3 / 2000 + 1 ))
    if [ "$i" = 1 ] || { [ $st != 137 ] && [ "$took" -lt "$span" ]; }; then span=$took; fi
    # R stops at 25.5 h, between two runs: the stop posts whatever the
    # killed runs left of it
    [ "$i" = 3 ] && rdc --as bob --now "$(at 1530)" -c "job stop $R" && check "job stop R" "$RC" 0
    i=$((i + 1))
done
echo "  ($killed of 50 bill runs were killed before they finished; kill within ${span} us)" >&2
[ "$killed" -ge 10 ] && pass || fail "only $killed of 50 runs were killed before they finished"
rdc --output json --now 2026-11-14T00:00:00Z -c "bill run"
expect_status 0
# Independently: R 4 x 25.5 h at 2.78 (host: 25 spans of 1.265 and one of
# 0.6325 per worker), S 4 x 312 h at 0.25 to alice plus 2.65 federated to
# bob, Q 2 x 2.5 h at 0.25, 12 devices for 13 days, payouts of all the
# host's earnings (at 11-02 and 11-03 00:00).
fees=$(device_fees 12 2026-11-01 2026-11-13)
check "bob" "$(bal rdc bob)" $((1000000000 - 4 * 2550 * 2780000 / 100 - 4 * 312 * 2650000))
check "alice" "$(bal rdc alice)" $((100000000 - 4 * 312 * 250000 - 2 * 250 * 250000 / 100))
check "default wallet" "$(bal rdc default)" $((4 * (25 * 1265000 + 632500)))
check "default earnings" "$(bal rdc default earnings_ucr)" 0
check "carol" "$(bal rdc carol)" "-$fees"
check "platform" "$(bal rdc platform)" $((4 * 2550 * 2780000 / 100 - 4 * (25 * 1265000 + 632500) + 4 * 312 * 2900000 + 2 * 250 * 250000 / 100 + fees))
rdc --output json -c "ledger verify"
expect_status 0
# 2 deposits, R 4 x 26 spans x 2 parts, S 4 x 312 x 2, Q 2 x 3, 13 fees, 2
# payouts: one more transfer would be a double post.
expect_json transfers $((2 + 4 * 26 * 2 + 4 * 312 * 2 + 2 * 3 + 13 + 2))
rdc --output json --now 2026-11-14T00:00:00Z -c "bill run"
expect_json posted 0
expect_json usage_jobs 0

finish
