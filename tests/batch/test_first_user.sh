#!/bin/sh
# What a first real user tripped over (issue 13): queue order within one
# second, a worker report that arrives after a bill run, what a bill run
# reports, a federated payer out of credit, a node reporting fewer GPUs
# than it has given out.  Each case failed before its fix.
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched
export RIGDECK_MASTER_KEY="$TMP/master.key"

bal () { rd --output json -c "ledger balance $1"; jget "${2:-balance_ucr}"; }
submit () { spec=$1; shift; rd --output json "$@" -c "job submit $SP/$spec.yaml"; JOB=$(jget id); }
job_state () { rd --output json -c "job show $1"; jget state; }

rd -c "account create alice --plan team" -c "account create bob --plan team" -c "account create carol --plan team" \
   -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "node add dc ws --agent none --minion m-ws --inventory $INV/rtx3090x2.yaml" -c "node maintenance ws off" \
   -c "node add dc gpu-a --agent none --minion m-a --inventory $INV/a100x4.yaml" -c "node maintenance gpu-a off" \
   -c "price set a100 2.78" -c "price set rtx3090 0.6" \
   -c "account deposit alice 100" -c "account deposit bob 100" -c "account deposit carol 100"
expect_status 0

case_ "jobs submitted in one second run first in, first out"
# Six 1-GPU jobs at one instant onto a 2-GPU node: the first two run, then
# (as they end) the next two, then the last two.  Ordered by their random
# ids, this order comes out right once in 90 runs.
T=2026-11-01T01:00:00Z
ids=""
for k in 1 2 3 4 5 6; do submit rtx-1 --as alice --now $T; ids="$ids $JOB"; done
set -- $ids
for round in 1 2 3; do
    rd --now $T -c "sched run"
    a=$1 b=$2
    [ "$(job_state "$a")" = running ] && [ "$(job_state "$b")" = running ] && pass ||
        fail "round $round: the jobs submitted ${round}st should run ($a $(job_state "$a"), $b $(job_state "$b"))"
    shift 2
    for later in "$@"; do
        [ "$(job_state "$later")" = waiting_gpus ] && pass || fail "round $round: $later, submitted later, is $(job_state "$later")"
    done
    rd --as alice --now $T -c "job stop $a" -c "job stop $b"
done

case_ "priority still comes before submission order"
rd --as alice --output json --now $T -c "job submit $SP/rtx-1.yaml"; low1=$(jget id)
rd --as alice --output json --now $T -c "job submit $SP/rtx-1.yaml"; low2=$(jget id)
rd --as alice --output json --now $T -c "job submit $SP/rtx-1.yaml --priority 5"; high=$(jget id)
rd --now $T -c "sched run"
[ "$(job_state "$high")" = running ] && [ "$(job_state "$low1")" = running ] &&
    [ "$(job_state "$low2")" = waiting_gpus ] && pass ||
    fail "priority order: high $(job_state "$high") low1 $(job_state "$low1") low2 $(job_state "$low2")"
rd --as alice --now $T -c "job stop $high"
rd --as alice --now $T -c "job stop $low1" -c "job stop $low2"
rd --output json -c "job list --state running"
expect_json items.len 0

case_ "a worker reported ended after a bill run gets the hours past its end back"
# bob rents an A100 at 2.78 from 00:00; bill run at 05:00 bills 5 hours;
# then the agent says the worker ended at 03:00.
submit a100-1 --as bob --now 2026-11-02T00:00:00Z
J1=$JOB
rd --now 2026-11-02T00:00:00Z -c "sched run"
rd --now 2026-11-02T05:00:00Z -c "bill run"
expect_status 0
[ "$(bal bob)" = $((100000000 - 5 * 2780000)) ] && pass || fail "5 hours billed: bob has $(bal bob)"
before_host=$(bal earnings:default)
rd --as bob --output json --now 2026-11-02T03:00:00Z -c "job report $J1 --worker 0 finished"
expect_status 0
expect_json workers.0.ended_at 2026-11-02T03:00:00Z
[ "$(bal bob)" = $((100000000 - 3 * 2780000)) ] && pass || fail "3 hours stay billed: bob has $(bal bob)"
[ "$(bal earnings:default)" = $((before_host - 2 * 1265000)) ] && pass ||
    fail "the host gives back 2 x 1.265: $(bal earnings:default) from $before_host"
rd --output json -c "ledger entries --account wallet:bob --kind gpu_rental"
n_before=$(jget items.len)
# Posted transfers are never edited: the five hours are all still there.
[ "$(jget items | python3 -c "import json,sys; print(sum(1 for e in json.load(sys.stdin) if '/correction' not in e['id'] and e['debit']=='wallet:bob'))")" = 10 ] &&
    pass || fail "the five hours' rental transfers (2 each) should all remain"
rd --output json -c "ledger verify"
expect_json ok true
rd --now 2026-11-02T06:00:00Z --output json -c "bill run"
expect_json posted 0
rd --output json -c "ledger entries --account wallet:bob --kind gpu_rental"
expect_json items.len "$n_before"
[ "$(bal bob)" = $((100000000 - 3 * 2780000)) ] && pass || fail "a later bill run changed bob: $(bal bob)"

case_ "an end within a billed hour keeps exactly the partial hour"
rd -c "account deposit bob 20"
submit a100-1 --as bob --now 2026-11-03T00:00:00Z
J2=$JOB
bob0=$(bal bob)
rd --now 2026-11-03T00:00:00Z -c "sched run"
rd --now 2026-11-03T04:00:00Z -c "bill run"
rd --as bob --now 2026-11-03T01:20:00Z -c "job report $J2 --worker 0 failed"
expect_status 0
# 1 h 20 min at 2.78: 2.78 for the first hour, round(2.78 x 1200 / 3600) = 0.926667
[ "$(bal bob)" = $((bob0 - 2780000 - 926667)) ] && pass || fail "1h20m billed: bob has $(bal bob), had $bob0"
rd --output json -c "ledger verify"
expect_json ok true

case_ "bill run reports every transfer it posts, by kind"
rd --now 2026-11-04T00:00:00Z -c "bill run"
submit a100-1 --as bob --now 2026-11-04T00:00:00Z
rd --now 2026-11-04T00:00:00Z -c "sched run"
rd --as alice --output json --now 2026-11-04T00:00:00Z -c "job submit $SP/rtx-1.yaml"
rd --now 2026-11-04T00:00:00Z -c "sched run"
rd --output json --now 2026-11-04T02:00:00Z -c "bill run"
expect_status 0
# bob: 2 hours x (host part + platform part); alice: 2 hours of usage fee on
# the admin's public node (rental too: not her region).
expect_json gpu_rentals 8
expect_json payouts 0
expect_json posted 8
expect_json usage_ucr $((2 * 2780000 + 2 * 600000))
rd --output json --now 2026-11-04T02:00:00Z -c "bill run"
expect_json posted 0
for j in $(rd --output json -c "job list --state running" && jget items | python3 -c "import json,sys; print(' '.join(e['id'] for e in json.load(sys.stdin)))"); do
    rd --now 2026-11-04T02:00:00Z -c "job stop $j"
done

case_ "a federated payer without credit stops its jobs and gets no more placed"
# carol creates training jobs in alice's shared project: carol pays the
# federated fee (2.65 per worker-hour), alice the GPUs.
rd -c "account deposit alice 500"
rd --as alice -c "project create vision" -c "project share vision carol"
rd --as carol --output json --now 2026-11-05T00:00:00Z -c "job submit $SP/a100-1.yaml --project alice/vision"
F1=$(jget id)
rd --now 2026-11-05T00:00:00Z -c "sched run"
[ "$(job_state "$F1")" = running ] && pass || fail "carol's job should run: $(job_state "$F1")"
# 40 hours: carol owes 106 of her 100 credits
rd --now 2026-11-06T16:00:00Z -c "bill run"
c=$(bal carol)
[ "$c" -lt 0 ] && pass || fail "carol should be below zero, has $c"
rd --as carol --output json --now 2026-11-06T16:00:00Z -c "job submit $SP/a100-1.yaml --project alice/vision"
F2=$(jget id)
rd --output json --now 2026-11-06T16:00:00Z -c "sched run"
expect_json stopped_out_of_credits 1
[ "$(job_state "$F1")" = stopped ] && pass || fail "the running job should stop: $(job_state "$F1")"
rd --output json -c "job show $F1"
expect_json reason out_of_credits
[ "$(job_state "$F2")" = waiting_gpus ] && pass || fail "the second job must not be placed: $(job_state "$F2")"
rd --as carol --output json --now 2026-11-06T16:00:00Z -c "job why $F2"
expect_out "the paying account 'carol' has no credit left"
expect_out "could take it once 'carol' has credit"
expect_no_out "the next sched run places it"
expect_json credit false
# alice herself still has credit: her own jobs in the same project run.
rd --as alice --output json --now 2026-11-06T16:00:00Z -c "job submit $SP/a100-1.yaml --project vision"
JOB=$(jget id)
rd --now 2026-11-06T16:00:00Z -c "sched run"
[ "$(job_state "$JOB")" = running ] && pass || fail "alice's own job should run: $(job_state "$JOB")"
rd --as alice --now 2026-11-06T16:00:00Z -c "job stop $JOB"
rd --as carol --now 2026-11-06T16:00:00Z -c "job stop $F2"
rd --output json -c "ledger verify"
expect_json ok true

case_ "a node reporting fewer GPUs than its workers hold drains and says why"
sed 's/count: 4/count: 2/' $INV/a100x4.yaml >"$TMP/a100x2.yaml"
grep -q 'count: 2' "$TMP/a100x2.yaml" && pass || fail "the 2-GPU inventory was not made"
rd --as alice --output json --now 2026-11-07T00:00:00Z -c "job submit $SP/a100-4.yaml"; BIG=$(jget id)
rd --now 2026-11-07T00:00:00Z -c "sched run"
[ "$(job_state "$BIG")" = running ] && pass || fail "the 4-GPU job should run: $(job_state "$BIG")"
rd --output json --now 2026-11-07T01:00:00Z -c "node report gpu-a --inventory $TMP/a100x2.yaml"
expect_status 0
expect_json state draining
expect_json gpu_count 2
expect_json gpus_used 4
expect_json unmet.0.requirement gpus_held
expect_json unmet.0.actual 2
[ "$(job_state "$BIG")" = running ] && pass || fail "its workers keep running: $(job_state "$BIG")"
rd --as alice --output json --now 2026-11-07T01:00:00Z -c "job submit $SP/a100-1.yaml"; SMALL=$(jget id)
rd --now 2026-11-07T01:00:00Z -c "sched run"
[ "$(job_state "$SMALL")" = waiting_gpus ] && pass || fail "no new work on the draining node: $(job_state "$SMALL")"
# The GPUs come back: the node takes work again.
rd --output json --now 2026-11-07T01:10:00Z -c "node report gpu-a --inventory $INV/a100x4.yaml"
expect_json state active
expect_json unmet.len 0
rd --output json --now 2026-11-07T01:20:00Z -c "node report gpu-a --inventory $TMP/a100x2.yaml"
expect_json state draining
# The workers end: the node rests in maintenance with 2 free GPUs.
rd --as alice --now 2026-11-07T02:00:00Z -c "job stop $BIG"
rd --output json -c "node show gpu-a"
expect_json state maintenance
expect_json gpus_used 0
expect_json unmet.len 0
expect_json gpu_alloc.len 2
rd --now 2026-11-07T02:00:00Z -c "node maintenance gpu-a off" -c "sched run"
[ "$(job_state "$SMALL")" = running ] && pass || fail "the active 2-GPU node takes the 1-GPU job: $(job_state "$SMALL")"
rd --as alice --now 2026-11-07T02:00:00Z -c "job stop $SMALL"

case_ "a node reporting more GPUs gives out the new ones exactly once"
# A node added with 2 GPUs keeps 2 slots; the agent then finds 4.
rd --now 2026-11-07T03:00:00Z -c "node maintenance gpu-a on" \
   -c "node add dc grow --agent none --minion m-grow --inventory $TMP/a100x2.yaml" -c "node maintenance grow off"
rd --as alice --output json --now 2026-11-07T03:00:00Z -c "job submit $SP/a100-1.yaml"; ONE=$(jget id)
rd --now 2026-11-07T03:00:00Z -c "sched run"
rd --output json -c "node show grow"
expect_json gpus_used 1
expect_json gpu_alloc.len 2
rd --output json -c "node report grow --inventory $INV/a100x4.yaml"
expect_json gpu_count 4
rd --as alice --output json --now 2026-11-07T03:00:00Z -c "job submit $SP/a100-2.yaml"; TWO_A=$(jget id)
rd --as alice --output json --now 2026-11-07T03:00:00Z -c "job submit $SP/a100-2.yaml"; TWO_B=$(jget id)
rd --now 2026-11-07T03:00:00Z -c "sched run"
rd --output json -c "node show grow"
expect_json gpus_used 3
expect_json gpu_alloc.len 4
[ "$(job_state "$TWO_A")" = running ] && pass || fail "the first 2-GPU job fits: $(job_state "$TWO_A")"
[ "$(job_state "$TWO_B")" = waiting_gpus ] && pass || fail "no GPU is given twice: $(job_state "$TWO_B")"
rd --as alice --now 2026-11-07T04:00:00Z -c "job stop $ONE" -c "job stop $TWO_A" -c "job stop $TWO_B"
rd --output json -c "ledger verify"
expect_json ok true

finish
