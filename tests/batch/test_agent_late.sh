#!/bin/sh
# A job placed on a node in the moment before its first agent registered
# (issue 29): the books took placement as the start (no agent ran the
# node), so the worker was `running`, billed, and nobody started it until
# someone typed `job report`.  An agent-managed node now takes no work
# until its agent is online (issue 30); what is left of the race is a node
# without an agent mode (a store whose upgrade has not run: n1 here, its
# mode taken away behind rigdeck's back), placed on by the books.  The
# registering agent is handed such a worker and starts it, billed from its
# real start only; one that had hours billed for nothing fails
# `not_started` and every hour is given back.  The ledger verifies clean.
# A controller whose passes come before an agent-managed node's first
# agent (as test_job_env's serve and agent raced under load) leaves the job
# waiting, agent_offline, until the agent registers and runs it.  Runs on
# SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "node add dc n2 --minion m-2 --inventory $INV/a100x4.yaml"
expect_status 0
# n1 as a rigdeck before agent modes left it: no agent_mode, no agent_online
rd --output json -c "store dump --prefix /rigdeck/nodes/n1"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['items'][0]['value']
d.pop('agent_mode'); d.pop('agent_online')
json.dump(d, open(sys.argv[2], 'w'))" "$OUT" "$TMP/n1.json"
case $STORE in
etcd://*) etcdctl --endpoints "http://${STORE#etcd://}" put /rigdeck/nodes/n1 <"$TMP/n1.json" >/dev/null ;;
*) python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
assert db.execute('UPDATE kv SET value = ? WHERE key = ?', (open(sys.argv[2], 'rb').read(), b'/rigdeck/nodes/n1')).rowcount == 1
db.commit()" "${STORE#sqlite:}" "$TMP/n1.json" ;;
esac
rd --output json -c "node show n1"
expect_json agent_mode ""

iso () { python3 -c "import datetime as d; print((d.datetime.now(d.timezone.utc) + d.timedelta(seconds=$1)).strftime('%Y-%m-%dT%H:%M:%SZ'))"; }
secs_between () { python3 -c "import datetime as d; f=lambda s: d.datetime.strptime(s,'%Y-%m-%dT%H:%M:%SZ'); print(int((f('$2')-f('$1')).total_seconds()))"; }
# usage_fee µcr posted for job $1: debits of default less what came back
job_fees () {
    rd --output json -c "ledger entries --account default --kind usage_fee"
    jget items | python3 -c "
import json, sys
print(sum(t['amount_ucr'] * (1 if t['debit'] == 'wallet:default' else -1) for t in json.load(sys.stdin) if '/$1/' in t['id']))"
}

case_ "on a node without an agent mode the books start a placed worker at once (placement is the start)"
job_spec billed 'echo never; exit 0'
JB=$(submit billed)
rd --now "$(iso -10800)" -c "sched run"
expect_status 0
rd --now "$(iso 0)" -c "bill run"
expect_status 0
job_spec late 'echo ran-by-agent; sleep 1; exit 0'
JA=$(submit late)
PLACED=$(iso -60)
rd --now "$PLACED" -c "sched run"
expect_status 0
rd --output json -c "job show $JA"
expect_json workers.0.state running
expect_json workers.0.node n1
expect_json workers.0.started_at "$PLACED"
rd --output json -c "job show $JB"
expect_json workers.0.state running
fees=$(job_fees "$JB")
[ "$fees" = 750000 ] && pass || fail "3 hours of $JB billed $fees ucr, want 750000"

case_ "the agent registers: it starts the worker the books placed; billing starts with its process"
T0=$(iso 0)
start_agent n1 --inventory $INV/a100x4.yaml
wait_json 60 "job show $JA" state finished
rd --output json -c "job show $JA"
expect_json workers.0.run_by_agent true
started=$(jget workers.0.started_at)
ended=$(jget workers.0.ended_at)
ahead=$(secs_between "$T0" "$started")
[ "$ahead" -ge 0 ] && pass || fail "started_at $started is before the agent started ($T0): the books' start was kept"
secs=$(secs_between "$started" "$ended")
[ "$secs" -ge 1 ] && [ "$secs" -le 30 ] && pass || fail "ran $secs s ($started .. $ended)"
rd -c "job logs $JA"
expect_out "^ran-by-agent$"
fees=$(job_fees "$JA")
want=$(python3 -c "print((250000 * $secs * 2 + 3600) // 7200)")
[ "$fees" = "$want" ] && pass || fail "billed $fees ucr for $secs s, want $want (nothing before the real start)"

case_ "a worker billed for hours nobody ran fails not_started, and every hour is given back"
rd --output json -c "job show $JB"
expect_json workers.0.state failed
expect_json workers.0.reason not_started
expect_json workers.0.ended_at "$(jget workers.0.started_at)"
fees=$(job_fees "$JB")
[ "$fees" = 0 ] && pass || fail "$JB still owes $fees ucr"
rd -c "job logs $JB"
expect_no_out "never"

case_ "the node's GPUs are free again and the ledger verifies clean"
rd --output json -c "node show n1"
expect_json gpus_used 0
rd -c "ledger verify"
expect_status 0

case_ "an agent that registers again (restart) leaves its own workers alone"
job_spec again 'echo again; sleep 600'
JC=$(submit again)
rd -c "sched run"
wait_json 60 "job show $JC" workers.0.run_by_agent true
rd --output json -c "job show $JC"
c_started=$(jget workers.0.started_at)
kill_daemon "$(agent_pid n1)" TERM
start_agent n1 --inventory $INV/a100x4.yaml
wait_json 60 "node show n1" agent.pid "$(agent_pid n1)"
rd --output json -c "job show $JC"
expect_json workers.0.state running
expect_json workers.0.started_at "$c_started"
rd -c "job stop $JC"
wait_json 60 "job show $JC" state stopped

case_ "a controller whose passes come before the node's first agent: the job waits, then the agent runs it"
rd -c "node maintenance n1 on" -c "node maintenance n2 off"
expect_status 0
start_serve s1 --sched-every 1s
job_spec raced 'echo raced-and-ran; exit 0'
JR=$(submit raced)
why_offline () {
    rd --output json -c "job why $JR"
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert [c['ruled_out'] for c in d['constraints'] if c['constraint'] == 'agent_offline'] == [1], d" "$OUT"
}
wait_until 60 why_offline
rd --output json -c "job show $JR"
expect_json workers.0.state waiting_gpus
expect_json workers.0.node null
start_agent n2 --inventory $INV/a100x4.yaml
wait_json 60 "job show $JR" state finished
rd -c "job logs $JR"
expect_out "^raced-and-ran$"
wait_json 30 "node show n2" gpus_used 0
rd -c "ledger verify"
expect_status 0

finish
