#!/bin/sh
# job stop on a job with many running workers: it ends them in steps (so
# each commit fits etcd's 128-op txn), the job reads `stopping` until the
# last step, and every worker's last charges are posted exactly once.
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched

rd -c "account create bob --plan team" -c "provider enable physical" \
   -c "region create dc --provider physical --storage local --public" -c "price set a100 2.78" \
   -c "account deposit bob 1000"
expect_status 0
for i in 01 02 03 04 05 06 07 08 09 10; do
    rd -c "node add dc gpu-$i --agent none --minion m-$i --inventory $INV/a100x4.yaml" -c "node maintenance gpu-$i off"
done
expect_status 0

case_ "a 40-worker job runs on ten 4-GPU nodes"
rd --as bob --output json --now 2026-11-01T10:00:00Z -c "job submit $SP/a100-1x40.yaml"
JOB=$(jget id)
rd --output json --now 2026-11-01T10:00:00Z -c "sched run"
expect_status 0
rd --output json -c "job show $JOB"
expect_json state running
running=$(jget workers | python3 -c "import json,sys; print(sum(w['state'] == 'running' for w in json.load(sys.stdin)))")
[ "$running" = 40 ] && pass || fail "running workers: $running"

case_ "job stop ends all 40 workers in steps, each charged once"
rd --as bob --output json --now 2026-11-01T11:00:00Z -c "job stop $JOB"
expect_status 0
expect_json state stopped
stopped=$(jget workers | python3 -c "import json,sys; print(sum(w['state'] == 'stopped' for w in json.load(sys.stdin)))")
[ "$stopped" = 40 ] && pass || fail "stopped workers: $stopped"
rd --output json -c "audit list --actor bob"
steps=$(jget items | python3 -c "import json,sys; print(sum('job stop' in e.get('command', '') for e in json.load(sys.stdin)))")
[ "$steps" -ge 10 ] && pass || fail "job stop committed in $steps steps, expected at least 10"
# 40 GPU-hours at 2.78.
rd --output json -c "ledger balance bob"
expect_json balance_ucr 888800000
rd --output json -c "node list"
used=$(jget items | python3 -c "import json,sys; print(sum(n.get('gpus_used', 0) for n in json.load(sys.stdin)))")
[ "$used" = 0 ] && pass || fail "GPUs still in use after the stop: $used"
rd --output json -c "ledger verify"
expect_status 0

case_ "a stopped job cannot be stopped again; nothing changes"
before=$(snapshot)
rd --as bob -c "job stop $JOB"
expect_refused 1 "$before" "has ended already"
finish
