#!/bin/sh
# The books of an agent's fence and of a node that cannot start work,
# without a running daemon: `job report --node` is refused unless the worker
# is placed on that node, and `job report ID requeued --reason disk_full`
# (the node's side only) puts a starting worker back in the queue, unbilled,
# and takes the node out of service until `node maintenance NAME off`.
. tests/batch/lib.sh
. tests/batch/agent_job.sh

case_ "the job's creator may not take the node out"
before=$(snapshot)
rd --as alice -c "job report $J requeued --worker 0 --node n1 --reason disk_full"
expect_refused 1 "$before" "only that agent (the node's owner) or fleet staff"

case_ "requeued needs a reason a node gives"
rd -c "job report $J requeued --worker 0 --node n1"
expect_refused 1 "$before" "requeued needs --reason disk_full"
rd -c "job report $J requeued --worker 0 --node n1 --reason tired"
expect_refused 1 "$before" "got 'tired'"

case_ "a report naming another node is refused"
rd -c "job report $J requeued --worker 0 --node n2 --reason disk_full"
expect_refused 1 "$before" "placed on node n1, not n2"
rd -c "job report $J running --worker 0 --node n2"
expect_refused 1 "$before" "placed on node n1, not n2"
rd -c "job report $J failed --worker 0 --node n2 --reason start_failed"
expect_refused 1 "$before" "placed on node n1, not n2"

case_ "the node's agent gives the worker back: it waits again, unbilled; the node leaves service"
rd --output json -c "job report $J requeued --worker 0 --node n1 --reason disk_full --detail 'No space left on device'"
expect_status 0
expect_json state waiting_gpus
expect_json workers.0.state waiting_gpus
expect_json workers.0.node null
expect_json workers.0.started_at null
rd --output json -c "node show n1"
expect_json state maintenance
expect_json maintenance_reason disk_full
expect_json maintenance_detail "No space left on device"
expect_json gpus_used 0
expect_json workers "[]"
rd --output json -c "ledger entries --account alice"
expect_json items.len 1   # the deposit alone
rd -c "ledger verify"
expect_status 0

case_ "a worker that is not starting cannot be given back; a report from no node's worker is fenced"
before=$(snapshot)
rd -c "job report $J requeued --worker 0 --reason disk_full"
expect_refused 1 "$before" "is waiting_gpus, not starting"
rd -c "job report $J running --worker 0 --node n1"
expect_refused 1 "$before" "placed on no node, not n1"

case_ "node maintenance off brings the node back and forgets the fault; the worker is placed again"
rd --output json -c "node maintenance n1 off"
expect_status 0
expect_json state active
expect_json maintenance_reason ""
expect_json maintenance_detail ""
rd -c "sched run"
rd --output json -c "job show $J"
expect_json workers.0.state starting
expect_json workers.0.node n1
rd -c "job report $J running --worker 0 --node n1"
expect_status 0
before=$(snapshot)
rd -c "job report $J requeued --worker 0 --node n1 --reason disk_full"
expect_refused 1 "$before" "is running, not starting"

finish
