#!/bin/sh
# Usage billing of workers (billing.md): usage fee on own capacity, GPU
# rental split between host and platform, federated fee for shared projects,
# hourly spans plus the partial hour, out-of-credit stops.
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched
export RIGDECK_MASTER_KEY="$TMP/master.key"

bal () { rd --output json -c "ledger balance $1"; jget "${2:-balance_ucr}"; }
submit () { spec=$1; shift; rd --output json "$@" -c "job submit $SP/$spec.yaml"; JOB=$(jget id); }

rd -c "account create alice --plan team" -c "account create bob --plan team" \
   -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "node add dc gpu-a --agent none --minion m-a --inventory $INV/a100x4.yaml" -c "node maintenance gpu-a off" \
   -c "price set a100 2.78" -c "account deposit alice 100" -c "account deposit bob 100"
rd --as alice -c "provider enable physical" -c "region create alab --provider physical --storage local" \
   -c "node add alab a-1 --agent none --minion m-a1 --inventory $INV/a100x4.yaml" -c "node maintenance a-1 off" \
   -c "project create vision" -c "project share vision bob"
expect_status 0

case_ "renting an A100 at 2.78 for an hour: the host earns 1.265, the platform the rest"
submit a100-1 --as bob --now 2026-11-01T10:00:00Z
rd --now 2026-11-01T10:00:00Z -c "sched run"
rd --as bob --output json --now 2026-11-01T11:00:00Z -c "job stop $JOB"
expect_status 0
[ "$(bal bob)" = 97220000 ] && pass || fail "bob paid $(bal bob)"
rd --output json -c "ledger balance default"
expect_json earnings_ucr 1265000
[ "$(bal platform)" = 1515000 ] && pass || fail "platform got $(bal platform)"

case_ "own capacity pays the usage fee, whole hours then the partial hour"
submit a100-2 --as alice --now 2026-11-01T10:00:00Z
rd --now 2026-11-01T10:00:00Z -c "sched run"
rd --as alice --output json --now 2026-11-01T11:30:00Z -c "job stop $JOB"
# 0.25 x 2 GPUs x 1 h = 0.5, then 0.25 x 2 x 0.5 h = 0.25.
[ "$(bal alice)" = 99250000 ] && pass || fail "alice has $(bal alice)"
rd --output json -c "ledger entries --account wallet:alice --kind usage_fee"
expect_json items.len 2
amounts=$(jget items | python3 -c "import json,sys; print(sorted(e['amount_ucr'] for e in json.load(sys.stdin)))")
[ "$amounts" = "[250000, 500000]" ] && pass || fail "usage spans $amounts"

case_ "a shared project's creator pays the federated fee; the owner pays the GPUs"
a0=$(bal alice); b0=$(bal bob)
rd --output json --as bob --now 2026-11-01T12:00:00Z -c "job submit $SP/a100-1.yaml --project alice/vision"
JOB=$(jget id)
rd --now 2026-11-01T12:00:00Z -c "sched run"
rd --as bob --output json -c "job show $JOB"
expect_json workers.0.node a-1
rd --as bob --output json --now 2026-11-01T13:00:00Z -c "job stop $JOB"
[ $((a0 - $(bal alice))) = 250000 ] && pass || fail "owner paid $((a0 - $(bal alice)))"
[ $((b0 - $(bal bob))) = 2650000 ] && pass || fail "creator paid $((b0 - $(bal bob)))"

case_ "fractional GPUs pay their fraction"
rd --as alice -c "node set a-1 --gpu-sharing on"
a0=$(bal alice)
submit half --as alice --now 2026-11-01T14:00:00Z
rd --now 2026-11-01T14:00:00Z -c "sched run"
rd --as alice --now 2026-11-01T15:00:00Z -c "job stop $JOB"
[ $((a0 - $(bal alice))) = 125000 ] && pass || fail "half a GPU-hour cost $((a0 - $(bal alice)))"

case_ "stopping twice posts nothing twice; the ledger verifies"
before=$(snapshot)
rd --as alice --now 2026-11-01T16:00:00Z -c "job stop $JOB"
expect_refused 1 "$before" "has ended already"
rd --output json -c "ledger verify"
expect_status 0

case_ "an account at or below zero has its running jobs stopped: out_of_credits"
rd -c "account create carol --plan team" -c "account deposit carol 1"
submit a100-4 --as carol --now 2026-11-01T20:00:00Z
rd --now 2026-11-01T20:00:00Z -c "sched run"
rd --as carol --output json -c "job show $JOB"
expect_json state running
# Four rented A100s at 2.78 for an hour cost 11.12: the stop posts them all.
rd --output json --now 2026-11-01T21:00:00Z -c "bill run"
rd --output json --now 2026-11-01T21:00:00Z -c "sched run"
rd --as carol --output json -c "job show $JOB"
if [ "$(jget state)" = stopped ]; then
    pass
    expect_json reason out_of_credits
    [ "$(bal carol)" = $((1000000 - 11120000)) ] && pass || fail "carol's balance $(bal carol)"
else
    fail "carol's job still $(jget state)"
fi
rd --output json -c "ledger verify"
expect_status 0

finish
