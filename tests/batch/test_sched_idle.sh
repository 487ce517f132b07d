#!/bin/sh
# The idle record of `sched run`: a pass that leaves nothing placeable
# records the store revision it ended at, and the next pass answers from it
# only while nothing a pass reads has been written since.  Each case makes a job
# placeable by changing one thing (wallet, node, price, another job, an
# unrelated write) after two idle passes, and the next pass must place it.
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched
export RIGDECK_MASTER_KEY="$TMP/master.key"

submit () { rd --as bob --output json -c "job submit $SP/$1.yaml"; JOB=$(jget id); }
state () { rd --output json -c "job show $1"; jget state; }
# idle_twice: two passes place nothing; on SQLite the second is answered
# from the record and writes nothing at all.  (On etcd a process that wrote
# revokes its txn marker's lease when it closes the store, a write, so the
# record of one process is never valid in the next: always a full pass.)
idle_twice () {
    rd --output json -c "sched run"
    expect_json placed 0
    rev=$(revision)
    rd --output json -c "sched run"
    expect_json placed 0
    expect_json waiting "$1"
    case $STORE in
    sqlite:*) [ "$(revision)" = "$rev" ] && pass || fail "an idle pass after an idle pass wrote to the store" ;;
    esac
}

rd -c "account create bob --plan team" -c "provider enable physical" \
   -c "region create dc --provider physical --storage local --public" \
   -c "node add dc gpu-a --agent none --minion m-a --inventory $INV/a100x4.yaml" -c "node maintenance gpu-a off" \
   -c "price set a100 2.78" -c "region create edge --provider physical --storage central" \
   -c "node add edge st-01 --agent none --minion m-st1 --role storage --inventory $INV/storage.yaml"
expect_status 0

case_ "a wallet deposit makes a waiting job placeable"
submit a100-1
idle_twice 1
expect_json waiting_for_credit 1
rd -c "account deposit bob 100"
rd --output json -c "sched run"
expect_json placed 1
[ "$(state "$JOB")" = running ] && pass || fail "job not running after the deposit"
rd --as bob -c "job stop $JOB"

case_ "a node leaving maintenance makes a waiting job placeable"
rd -c "node maintenance gpu-a on"
submit a100-1
idle_twice 1
rd -c "node maintenance gpu-a off"
rd --output json -c "sched run"
expect_json placed 1
rd --as bob -c "job stop $JOB"

case_ "a lower market price makes a waiting job placeable"
rd -c "price set a100 5"
submit a100-1
idle_twice 1
rd --as bob --output json -c "job why $JOB"
expect_out '"constraint":"price"'
rd -c "price set a100 2"
rd --output json -c "sched run"
expect_json placed 1
rd --as bob -c "job stop $JOB"

case_ "another job ending makes a waiting job placeable"
submit a100-4
BIG=$JOB
rd --output json -c "sched run"
expect_json placed 1
submit a100-1
idle_twice 1
rd --as bob -c "job stop $BIG"
rd --output json -c "sched run"
expect_json placed 1
[ "$(state "$JOB")" = running ] && pass || fail "job not running after the blocker ended"
rd --as bob -c "job stop $JOB"

case_ "a new job after an idle pass is placed"
rd -c "node maintenance gpu-a on"
submit a100-1
FIRST=$JOB
idle_twice 1
rd -c "node maintenance gpu-a off"
submit a100-2
rd --output json -c "sched run"
expect_json placed 2
expect_json waiting 0

case_ "an unrelated write only costs a full pass, with the same answer"
submit a100-2
idle_twice 1
rd -c "account create carol --plan free"
rd --output json -c "sched run"
expect_json placed 0
expect_json waiting 1
rd --output json -c "sched run --dry-run"
expect_json waiting 1
expect_json dry_run true

case_ "writes no pass reads (a device added, a device reporting) keep the idle record"
idle_twice 1
rd -c "device add edge cam-01 --minion m-cam --model jetson-orin-nano"
expect_status 0
rd -c "device report cam-01 --status ready"
expect_status 0
before=$(revision)
rd --output json -c "sched run"
expect_json placed 0
expect_json waiting 1
[ "$(revision)" = "$before" ] && pass || fail "the pass after device writes read the queue again (it wrote a new record)"

case_ "device writes around a job ending: the pass still sees the freed GPUs"
idle_twice 1
rd -c "device add edge cam-02 --minion m-cam2 --model jetson-orin-nano"
rd --as bob -c "job stop $FIRST"
expect_status 0
rd -c "device remove cam-02"
expect_status 0
rd --output json -c "sched run"
expect_json placed 1
expect_json waiting 0

finish
