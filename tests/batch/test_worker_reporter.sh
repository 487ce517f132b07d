#!/bin/sh
# Who may report on a worker (`job report`): on a node an agent runs, only
# that agent (the node's owner) or fleet staff.  A customer who could report
# its own worker ended would be given back the hours its process went on
# using; on a node no agent runs (the books), the job's creator still may.
. tests/batch/lib.sh
. tests/batch/agent_job.sh

case_ "the job's creator may not say its worker started on a node an agent runs"
before=$(snapshot)
rd --as alice -c "job report $J running --worker 0"
expect_refused 1 "$before" "is on node n1, which an agent runs: only that agent (the node's owner) or fleet staff"

case_ "the node's side reports it running; the creator may not end it early"
rd --output json -c "job report $J running --worker 0 --node n1"
expect_status 0
expect_json workers.0.state running
before=$(snapshot)
rd --as alice -c "job report $J finished --worker 0 --exit-code 0"
expect_refused 1 "$before" "use job stop"
rd --as alice -c "job report $J failed --worker 0 --exit-code 1"
expect_refused 1 "$before" "which an agent runs"

case_ "the creator stops it with job stop, as always"
rd --as alice --output json -c "job stop $J"
expect_status 0

case_ "on a manual node (--agent none), the job's creator still reports"
rd -c "node add dc n2 --agent none --minion m-2 --inventory $INV/a100x4.yaml" -c "node maintenance n2 off" -c "node maintenance n1 on"
expect_status 0
rd --as alice --output json -c "job submit $TMP/job.yaml"
K=$(jget id)
rd -c "sched run"
rd --output json -c "job show $K"
expect_json workers.0.node n2
rd --as alice --output json -c "job report $K finished --worker 0 --exit-code 0"
expect_status 0
expect_json workers.0.state finished
rd -c "ledger verify"
expect_status 0
finish
