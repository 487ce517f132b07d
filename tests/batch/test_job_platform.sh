#!/bin/sh
# The books of platform failures (spec/execution.md §4), without a runtime:
# `job report ID failed --reason image_pull_failed|runtime_error|
# staging_failed --message M` ends a `starting` worker failed, with its
# message, no started_at and no charge; the node's side counts them, three
# in a row put the node in maintenance (reason runtime), a worker that
# starts resets the count, and a customer's report never counts.  The
# refusals: a platform reason for a worker that started, with an exit code,
# a message on anything but failed.  The same rules under real podman:
# tests/batch/test_runtime_podman.sh.
. tests/batch/lib.sh
. tests/batch/agent_job.sh

# place JOBFILE: alice submits it and the scheduler places it on n1.
place () {
    rd --as alice --output json -c "job submit $1"
    id=$(jget id)
    rd -c "sched run"
    echo "$id"
}

case_ "a platform reason is refused for a worker that started, with an exit code, or with another end"
before=$(snapshot)
rd -c "job report $J failed --worker 0 --node n1 --reason image_pull_failed --exit-code 125"
expect_refused 1 "$before" "is for a worker that failed before its command started"
rd -c "job report $J finished --worker 0 --node n1 --reason runtime_error"
expect_refused 1 "$before" "is for a worker that failed before its command started"
rd -c "job report $J failed --worker 0 --node n1 --message 'two
lines'"
expect_refused 1 "$before" "--message is one line"

case_ "the agent reports an image it cannot pull: failed, its message, no start, no charge"
rd --output json -c "job report $J failed --worker 0 --node n1 --reason image_pull_failed --message 'Error: initializing source docker://x/y:1: no such host'"
expect_status 0
expect_json state failed
expect_json workers.0.reason image_pull_failed
expect_json workers.0.message "Error: initializing source docker://x/y:1: no such host"
expect_json workers.0.started_at null
expect_json workers.0.ended_at null
rd --output json -c "node show n1"
expect_json state active
expect_json runtime_failures 1
expect_json gpus_used 0
rd --output json -c "ledger entries --account alice"
n=$(jget items | python3 -c "import json,sys; print(sum(1 for t in json.load(sys.stdin) if '$J' in t['id']))")
[ "$n" = 0 ] && pass || fail "$n ledger entries for a worker that never started"

case_ "a worker that starts resets the count"
J2=$(place "$TMP/job.yaml")
rd --output json -c "job report $J2 running --worker 0 --node n1"
expect_status 0
rd --output json -c "node show n1"
expect_json runtime_failures 0
rd -c "job report $J2 finished --worker 0 --node n1 --exit-code 0"
expect_status 0

case_ "a customer's word never counts against the node"
J3=$(place "$TMP/job.yaml")
rd --as alice -c "job report $J3 failed --worker 0 --node n1 --reason runtime_error --message 'Error: x'"
expect_status 1
expect_err "only that agent (the node's owner) or fleet staff"
rd --output json -c "node show n1"
expect_json runtime_failures 0

case_ "the agent says a starting worker stages its data: phase staging and bytes_done, in its answer and the store"
# (the answer is the job the store kept: under ASan or valgrind this fails
# if the command hands back a document the transaction already freed)
rd --output json -c "job report $J3 staging --worker 0 --node n1 --bytes 4096"
expect_status 0
expect_json workers.0.phase staging
expect_json workers.0.bytes_done 4096
rd --output json -c "job show $J3"
expect_json workers.0.state starting
expect_json workers.0.bytes_done 4096

case_ "three in a row put the node in maintenance, reason runtime, and raise node-runtime"
rd -c "job report $J3 failed --worker 0 --node n1 --reason runtime_error --message 'Error: crun: cgroups in hybrid mode not supported'"
expect_status 0
for k in 2 3; do
    Jk=$(place "$TMP/job.yaml")
    rd --output json -c "job report $Jk failed --worker 0 --node n1 --reason staging_failed --message 'Error: step $k'"
    expect_json workers.0.reason staging_failed
done
rd --output json -c "node show n1"
expect_json state maintenance
expect_json maintenance_reason runtime
expect_json maintenance_detail "3 workers in a row could not start: Error: step 3"
expect_json runtime_failures 0
rd --output json -c "alert eval"
rd --output json -c "alert list"
python3 -c "
import json,sys
items=json.load(open('$OUT'))['items']
sys.exit(0 if any(a['rule']=='node-runtime' and a['node']=='n1' and a['state']=='firing' for a in items) else 1)" &&
    pass || fail "no firing node-runtime alert for n1"
rd -c "node maintenance n1 off" -c "alert eval"
expect_status 0
rd --output json -c "alert list"
python3 -c "
import json,sys
items=json.load(open('$OUT'))['items']
sys.exit(1 if any(a['rule']=='node-runtime' and a['state']=='firing' for a in items) else 0)" &&
    pass || fail "node-runtime still firing after maintenance off"
rd -c "ledger verify"
expect_status 0

finish
