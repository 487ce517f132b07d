#!/bin/sh
# A node's clock steps back (NTP correcting a fast clock, a VM restored
# from a snapshot) while its worker runs.  The agent reports the end at
# its own clock (--at), which now lies before the worker's recorded start
# by more than two clocks may disagree: the store refuses the moment.
# Before, the agent took any refusal as "the store has ended it already"
# and forgot the worker, which then stayed `running` in the books, billed
# every hour, forever.  Now it says the end again without a moment and the
# store takes its own clock; an end reported without --at is never
# refused for its time.  The agent's clock is moved with libfaketime
# (Debian's faketime), the real clock calls a stepped machine would see.
# Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

FT=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1
[ -r "$FT" ] || skip "libfaketime not installed (Debian package faketime): the agent's clock cannot be stepped"

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n0 --agent none --minion m-0 --inventory $INV/a100x4.yaml" -c "node maintenance n0 off" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0

case_ "a job without --at from a clock behind the worker's start ends at its start"
job_spec manual 'true'
JM=$(submit manual)
rd -c "sched run"
expect_status 0
rd --output json -c "job show $JM"
expect_json workers.0.state running
started=$(jget workers.0.started_at)
behind=$(python3 -c "import datetime as d; f='%Y-%m-%dT%H:%M:%SZ'; print((d.datetime.strptime('$started', f) - d.timedelta(seconds=600)).strftime(f))")
rd --now "$behind" -c "job report $JM --worker 0 finished --at $behind"
expect_status 1
expect_err "is before worker 0's start"
rd --now "$behind" --output json -c "job report $JM --worker 0 finished"
expect_status 0
expect_json workers.0.state finished
expect_json workers.0.ended_at "$started"

case_ "the agent's clock steps back five minutes while its worker runs: the end still lands"
rd -c "node maintenance n0 on"   # n1, whose agent runs, takes the next job
expect_status 0
echo "+0" >"$TMP/clock"
export LD_PRELOAD="$FT" FAKETIME_TIMESTAMP_FILE="$TMP/clock" FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1
start_agent n1 --inventory "$INV/a100x4.yaml"
unset LD_PRELOAD FAKETIME_TIMESTAMP_FILE FAKETIME_NO_CACHE FAKETIME_DONT_FAKE_MONOTONIC
wait_json 60 "node show n1" agent.state online
job_spec stepped "while [ ! -e $TMP/go ]; do sleep 0.2; done; echo done-after-step"
JS=$(submit stepped)
rd -c "sched run"
expect_status 0
wait_json 60 "job show $JS" workers.0.state running
echo "-300" >"$TMP/clock"
touch "$TMP/go"
wait_json 90 "job show $JS" state finished
said () { grep -q "clock disagrees with the store's" "$TMP/agent-n1.log"; }
wait_until 10 said
rd -c "job logs $JS"
expect_out "done-after-step"
rd -c "ledger verify"
expect_status 0

finish
