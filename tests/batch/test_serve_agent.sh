#!/bin/sh
# The fleet running by itself: a real controller (rigdeck serve) and real
# node agents (rigdeck agent) on this machine run real commands as jobs.
# Nobody types `sched run` or `job report`: jobs are placed, started,
# logged, ended with their real exit status and billed for exactly their
# running time; a stopped job gets SIGTERM then SIGKILL; a killed agent's
# node goes offline and its workers fail node_lost; a restarted agent adopts
# what still runs.  Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "node add dc n2 --minion m-2 --inventory $INV/a100x4.yaml" -c "node maintenance n2 off"
expect_status 0

case_ "a node without an agent says so"
rd --output json -c "node show n1"
expect_json agent.state none

case_ "serve and two agents start; one controller leads"
start_serve s1 --node-timeout 4s --sched-every 1s
start_agent n1 --inventory $INV/a100x4.yaml --sample 1s
start_agent n2 --inventory $INV/a100x4.yaml --sample 1s
wait_json 60 "serve status" leader.pid "$PID_s1"
wait_json 60 "node show n1" agent.state online
wait_json 60 "node show n2" agent.state online
rd --output json -c "serve status"
expect_json standby 0
rd --output json -c "node show n1"
expect_json agent.version 0.1.0
expect_json state active
rd --output json -c "agent list"
expect_json items.len 2

case_ "the agent samples vital stats; node show carries the latest reading"
has_vitals () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "node show $1" 2>/dev/null | python3 -c "
import json, sys
v = json.load(sys.stdin)['agent']['vitals']
assert v['cpu_util'] is not None and 0 <= v['cpu_util'] <= 100 and v['mem_used_gb'] > 0 and v['gpus'] == []"
}
wait_until 60 has_vitals n1

case_ "a submitted job runs with no one typing anything else; its real exit code ends it"
job_spec fail3 'echo out; echo err >&2; echo \"gpus=$CUDA_VISIBLE_DEVICES job=$RIGDECK_JOB_ID w=$RIGDECK_WORKER_INDEX tag=$RDTEST_TAG\"; sleep 1; exit 3'
J1=$(submit fail3)
wait_json 60 "job show $J1" state failed
rd --output json -c "job show $J1"
expect_json workers.0.exit_code 3
expect_json workers.0.state failed
rd -c "job logs $J1"
expect_status 0
expect_out "^out$"
expect_out "^err$"
expect_out "job=$J1 w=0 tag=tagged"
expect_out "gpus=[0-3] job="
rd -c "job logs $J1 --tail 1"
expect_out "gpus="
# kept under the node that ran it (what a node's etcd role may write), not
# at the job-keyed place older stores used
N1=$(rd --output json -c "job show $J1" && jget workers.0.node)
rd --output json -c "store dump --prefix /rigdeck/logs/"
expect_out "\"/rigdeck/logs/$N1/$J1/0\""
expect_no_out "\"/rigdeck/logs/$J1/"
expect_no_out "^out$"

case_ "the bill covers exactly started_at to ended_at"
rd --output json -c "job show $J1"
started=$(jget workers.0.started_at)
ended=$(jget workers.0.ended_at)
secs=$(python3 -c "import datetime as d,sys; f=lambda s: d.datetime.strptime(s,'%Y-%m-%dT%H:%M:%SZ'); print(int((f('$ended')-f('$started')).total_seconds()))")
[ "$secs" -ge 1 ] && [ "$secs" -le 30 ] && pass || fail "ran $secs s ($started .. $ended)"
rd --output json -c "ledger entries --account default --kind usage_fee"
billed=$(jget items | python3 -c "import json,sys; print(sum(t['amount_ucr'] for t in json.load(sys.stdin) if '$J1' in t['id']))")
want=$(python3 -c "print((250000 * $secs * 2 + 3600) // 7200)")
[ "$billed" = "$want" ] && pass || fail "billed $billed ucr for $secs s, want $want"

case_ "exit 0 finishes"
job_spec ok0 'echo fine'
J2=$(submit ok0)
wait_json 60 "job show $J2" state finished
rd --output json -c "job show $J2"
expect_json workers.0.exit_code 0

case_ "job logs --follow prints output as it comes and ends with the worker"
job_spec talk 'for i in 1 2 3 4 5; do echo line-$i; sleep 0.5; done'
J3=$(submit talk)
wait_json 60 "job show $J3" workers.0.state running
rd -c "job logs $J3 --follow"
expect_status 0
expect_out "^line-1$"
expect_out "^line-5$"
n=$(grep -c '^line-' "$OUT")
[ "$n" = 5 ] && pass || fail "followed $n lines, want 5 (each once)"

case_ "job stop sends SIGTERM; the worker turns stopped with its signal"
job_spec sleeper 'exec sleep 300'
J4=$(submit sleeper)
wait_json 60 "job show $J4" workers.0.state running
rd --output json -c "job stop $J4"
expect_status 0
expect_json state stopping
wait_json 60 "job show $J4" state stopped
rd --output json -c "job show $J4"
expect_json workers.0.signal 15

case_ "a worker that ignores SIGTERM gets SIGKILL 10 s later"
job_spec stubborn "trap '' TERM; while :; do sleep 0.2; done"
J5=$(submit stubborn)
wait_json 60 "job show $J5" workers.0.state running
rd -c "job stop $J5"
wait_json 90 "job show $J5" state stopped
rd --output json -c "job show $J5"
expect_json workers.0.signal 9

case_ "heartbeats write nothing to the store"
# Two agents heartbeat every second: over 6 s that is 12 heartbeats.  The
# only writes allowed meanwhile are the three watches' own registrations
# (each renewed at most every 20 s) and each agent's vital stats (once a
# minute), never one per heartbeat.
wait_json 60 "node show n1" gpus_used 0
rev1=$(revision)
until_t=$(($(date +%s) + 6))
while [ "$(date +%s)" -lt "$until_t" ]; do sleep 0.5; done
rev2=$(revision)
[ $((rev2 - rev1)) -le 5 ] && pass || fail "revision moved from $rev1 to $rev2 while idle agents heartbeat"
wait_json 10 "node show n1" agent.state online
wait_json 10 "node show n2" agent.state online

case_ "a restarted agent adopts a worker that kept running"
job_spec adopt 'sleep 6; echo done-late'
J6=$(submit adopt)
wait_json 60 "job show $J6" workers.0.state running
node=$(rd --output json -c "job show $J6"; jget workers.0.node)
kill_daemon "$(agent_pid "$node")" KILL
start_agent "$node" --inventory $INV/a100x4.yaml
wait_json 60 "job show $J6" state finished
rd --output json -c "job show $J6"
expect_json workers.0.exit_code 0
rd -c "job logs $J6"
expect_out "done-late"

case_ "killing an agent turns its node offline and its workers failed node_lost"
job_spec lost 'exec sleep 300'
J7=$(submit lost)
wait_json 60 "job show $J7" workers.0.state running
node=$(rd --output json -c "job show $J7"; jget workers.0.node)
killed_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
kill_daemon "$(agent_pid "$node")" KILL
wait_json 60 "node show $node" state offline
rd --output json -c "node show $node"
expect_json agent.state lost
rd --output json -c "job show $J7"
expect_json workers.0.state failed
expect_json workers.0.reason node_lost
# The last heartbeat is known to the lease's second: the end may be a little
# after the kill (whole seconds, and the moment the controller saw the lease
# run out), but before the node timeout (4 s) - the end is the heartbeat,
# never the moment the node was taken offline.
ended=$(jget workers.0.ended_at)
late=$(python3 -c "import datetime as d; f=lambda s: d.datetime.strptime(s,'%Y-%m-%dT%H:%M:%SZ'); print(int((f('$ended')-f('$killed_at')).total_seconds()))")
[ "$late" -le 3 ] && pass || fail "billed to $ended, ${late}s after the agent died at $killed_at"
rd -c "ledger verify"
expect_status 0

case_ "the agent comes back: the node returns to its state, the orphaned process is killed"
start_agent "$node" --inventory $INV/a100x4.yaml
wait_json 60 "node show $node" state active
# the agent kills the process the store has ended, then removes its directory
wait_until 60 sh -c "[ ! -e '$TMP/work-$node/$J7' ]"

case_ "a standby controller takes over when the leader dies, losing and doubling nothing"
start_serve s2 --node-timeout 4s --sched-every 1s
wait_json 60 "serve status" standby 1
kill_daemon "$PID_s1" KILL
wait_json 60 "serve status" leader.pid "$PID_s2"
job_spec after 'echo after-failover'
J8=$(submit after)
wait_json 60 "job show $J8" state finished
rd -c "ledger verify"
expect_status 0
rd --output json -c "node list"
over=$(jget items | python3 -c "import json,sys; print(sum(1 for n in json.load(sys.stdin) if n['gpus_used'] > n['gpu_count']))")
[ "$over" = 0 ] && pass || fail "$over node(s) gave more GPUs than they have"

case_ "SIGTERM stops both daemons cleanly (exit 0); the lead is handed over at once"
kill_daemon "$PID_s2" TERM
[ "$DSTATUS" = 0 ] && pass || fail "serve exited $DSTATUS on SIGTERM"
grep -q "stop: stopping" "$TMP/s2.log" && pass || fail "serve logged no stop line"
rd --output json -c "serve status"
expect_json leader null
kill_daemon "$(agent_pid n1)" TERM
[ "$DSTATUS" = 0 ] && pass || fail "agent exited $DSTATUS on SIGTERM"

case_ "job logs prune deletes the output of workers that ended over a week ago, once"
rd -c "job logs $J1"
expect_out "^out$"
rd --output json --now 2026-11-24T00:00:00Z -c "job logs prune"
expect_json workers_pruned 0
rd --output json --now 2099-01-01T00:00:00Z -c "job logs prune"
n=$(jget workers_pruned)
[ "$n" -ge 8 ] && pass || fail "pruned the output of $n workers, expected every ended one (8 or more)"
rd -c "job logs $J1"
expect_no_out "^out$"
rd --output json -c "job show $J1"
expect_json workers.0.logs_pruned_at 2099-01-01T00:00:00Z
rd --output json --now 2099-01-02T00:00:00Z -c "job logs prune"
expect_json workers_pruned 0

case_ "--once does one round and exits 0"
$WRAP "$BIN" serve --store "$STORE" --once 2>"$TMP/once.log"
RC=$?
expect_status 0
finish
