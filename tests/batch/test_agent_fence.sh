#!/bin/sh
# One worker never runs twice (issue 28, item 4).  An agent killed between
# starting a worker's process and reporting it `running` leaves that worker
# `starting`; once its node is offline the controller requeues it and it
# runs elsewhere.  The orphan on the dead agent's node must never execute
# the command (the runner holds it until the store has accepted `running`
# from this node), must not survive `job stop`, and a restarted agent
# cleans it up.  The window is made reachable with the test-only
# RIGDECK_TEST_SPAWN_DELAY_MS.  Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "node add dc n2 --minion m-2 --inventory $INV/a100x4.yaml"
expect_status 0

# ran_on NODE JOB: how many times JOB's command started on NODE (each run
# appends its working directory, WORK_DIR/<job>/<index>, to ran.log).
ran_on () { grep -c "/work-$1/$2/" "$TMP/ran.log" 2>/dev/null || true; }
# a command that records where it ran, then waits (its sh stays, so that
# pgrep -f sees every copy that runs)
marked () { echo "pwd >>$TMP/ran.log; $1"; }
copies () { pgrep -f "rdtest-worker-$$; pwd >>$TMP/ran.log; sleep $1" | wc -l; }
no_copies () { [ "$(copies "$1")" = 0 ]; }

case_ "the agents and the controller start; only n1 takes work"
start_serve s1 --node-timeout 4s --sched-every 1s
export RIGDECK_TEST_SPAWN_DELAY_MS=600000
start_agent n1 --inventory $INV/a100x4.yaml
unset RIGDECK_TEST_SPAWN_DELAY_MS
start_agent n2 --inventory $INV/a100x4.yaml
wait_json 60 "node show n1" agent.state online
wait_json 60 "node show n2" agent.state online
rd --output json -c "node show n2"
expect_json state maintenance

case_ "an agent killed between starting a worker and reporting it: the orphan never runs the command"
job_spec twice "$(marked 'sleep 301')"
J1=$(submit twice)
wait_until 60 grep -q "$J1/0: test spawn delay" "$TMP/agent-n1.log"
rd --output json -c "job show $J1"
expect_json workers.0.state starting
expect_json workers.0.node n1
kill_daemon "$(agent_pid n1)" KILL
rd -c "node maintenance n2 off"
expect_status 0
wait_json 60 "node show n1" state offline
wait_json 60 "job show $J1" workers.0.state running
rd --output json -c "job show $J1"
expect_json workers.0.node n2
wait_until 60 sh -c "[ \"\$(grep -c /work-n2/$J1/ '$TMP/ran.log')\" = 1 ]"
n1runs=$(ran_on n1 "$J1")
[ "$n1runs" = 0 ] && pass || fail "the orphan on n1 ran the command $n1runs time(s) while n2 runs it"
n=$(copies 301)
[ "$n" = 1 ] && pass || fail "$n copies of the worker run, want 1"

case_ "job stop leaves no copy running anywhere"
rd -c "job stop $J1"
expect_status 0
wait_json 60 "job show $J1" state stopped
wait_until 30 no_copies 301
rd --output json -c "job show $J1"
expect_json workers.0.node n2
rd -c "ledger verify"
expect_status 0

case_ "the agent comes back: its node returns, the orphan's directory goes"
start_agent n1 --inventory $INV/a100x4.yaml
wait_json 60 "node show n1" state active
wait_until 60 sh -c "[ ! -e '$TMP/work-n1/$J1' ]"
n1runs=$(ran_on n1 "$J1")
[ "$n1runs" = 0 ] && pass || fail "the orphan on n1 ran the command $n1runs time(s)"

case_ "a report from a node the worker is not placed on is refused and changes nothing"
job_spec fenced "$(marked 'sleep 302')"
rd -c "node maintenance n1 on"
J2=$(submit fenced)
wait_json 60 "job show $J2" workers.0.state running
rd --output json -c "job show $J2"
expect_json workers.0.node n2
rd -c "job report $J2 failed --worker 0 --node n1 --signal 9"
expect_status 1
expect_err "placed on node n2, not n1"
# (the daemons write all the time: the job itself shows nothing changed)
rd --output json -c "job show $J2"
expect_json workers.0.state running
expect_json workers.0.node n2
expect_json workers.0.signal ""
rd -c "job report $J2 running --worker 0 --node n1"
expect_status 1
expect_err "placed on node n2, not n1"
rd -c "job stop $J2"
wait_json 60 "job show $J2" state stopped
rd -c "node maintenance n1 off"

case_ "killed in the window and back before the node timeout: the worker runs exactly once"
kill_daemon "$(agent_pid n1)" TERM
rd -c "node maintenance n2 on"
export RIGDECK_TEST_SPAWN_DELAY_MS=600000
start_agent n1 --inventory $INV/a100x4.yaml
unset RIGDECK_TEST_SPAWN_DELAY_MS
job_spec once "$(marked 'sleep 1')"
J3=$(submit once)
wait_until 60 grep -q "$J3/0: test spawn delay" "$TMP/agent-n1.log"
kill_daemon "$(agent_pid n1)" KILL
start_agent n1 --inventory $INV/a100x4.yaml
wait_json 90 "job show $J3" state finished
rd --output json -c "job show $J3"
expect_json workers.0.exit_code 0
runs=$(grep -c "/$J3/" "$TMP/ran.log")
[ "$runs" = 1 ] && pass || fail "the worker ran $runs time(s), want 1"
rd -c "ledger verify"
expect_status 0

case_ "a worker stopped while its agent starts it never runs its command"
kill_daemon "$(agent_pid n1)" TERM
export RIGDECK_TEST_SPAWN_DELAY_MS=3000
start_agent n1 --inventory $INV/a100x4.yaml
unset RIGDECK_TEST_SPAWN_DELAY_MS
job_spec canceled "$(marked 'sleep 303')"
J4=$(submit canceled)
wait_until 60 grep -q "$J4/0: test spawn delay" "$TMP/agent-n1.log"
rd --output json -c "job stop $J4"
expect_json workers.0.state canceled
wait_until 60 grep -q "$J4/0 started but the store refused it" "$TMP/agent-n1.log"
wait_until 60 sh -c "[ ! -e '$TMP/work-n1/$J4' ]"
runs=$(grep -c "/$J4/" "$TMP/ran.log")
[ "$runs" = 0 ] && pass || fail "the canceled worker ran $runs time(s)"
rd --output json -c "job show $J4"
expect_json workers.0.state canceled

finish
