#!/bin/sh
# Work only where an agent runs (spec/execution.md §3, issue 30): a node is
# agent-managed unless added or set `--agent none`, and takes work only
# while its agent is online.  With real `rigdeck agent` processes (runtime
# process): a job for a node whose agent never registered waits and `job
# why` counts agent_offline; the agent starts and the job runs; the agent is
# killed (lost) and the next job waits again.  A manual node places running
# at once and ends by job report.  `node set --agent` is refused while
# workers are placed, to none while an agent is registered, and for a bad
# word, changing nothing; an agent may not register on a manual node.  `job
# why` also counts gpu_unhealthy and quota.  An older store's nodes get
# their agent mode with the first write, and the notice says how many.
# Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

why_count () {   # why_count JOB CONSTRAINT: its ruled_out in `job why`, 0 when absent
    rd --output json -c "job why $1"
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(c['ruled_out'] for c in d['constraints'] if c['constraint'] == sys.argv[2]))" "$OUT" "$2"
}
worker_state () { rd --output json -c "job show $1"; jget workers.0.state; }

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0

case_ "node add: agent-managed by default, shown in node show and node list"
rd --output json -c "node show n1"
expect_json agent_mode required
expect_json agent.state none
rd -c "node list"
expect_out "AGENT_MODE"
expect_out "^n1 .* required "
rd --output json -c "node list --fields name,agent_mode"
expect_json items.0.agent_mode required

case_ "a job for a node whose agent never registered waits: job why counts agent_offline"
job_spec first 'echo ran-on-n1; exit 0'
J1=$(submit first)
rd --output json -c "sched run"
expect_status 0
expect_json placed 0
[ "$(worker_state "$J1")" = waiting_gpus ] && pass || fail "placed on a node no agent runs"
[ "$(why_count "$J1" agent_offline)" = 1 ] && pass || fail "job why does not count n1 as agent_offline: $(cat "$OUT")"
expect_out "1 node whose agent is not online"

case_ "the agent starts: the job is placed starting, the agent runs it to the end"
start_agent n1 --inventory $INV/a100x4.yaml
wait_json 60 "node show n1" agent.state online
rd --output json -c "sched run"
expect_json placed 1
rd --output json -c "job show $J1"
expect_json workers.0.node n1
st=$(jget workers.0.state)
# starting at placement; the agent may have run it to its end already
case $st in starting|running|finished) pass ;; *) fail "placed as $st" ;; esac
wait_json 60 "job show $J1" state finished
rd --output json -c "job show $J1"
expect_json workers.0.run_by_agent true
rd -c "job logs $J1"
expect_out "^ran-on-n1$"

case_ "node set --agent is refused while workers are placed, for a bad word, and to none with an agent"
SNAPSHOT=snapshot_books   # the agent writes its stats and the worker's output meanwhile
job_spec long 'sleep 600'
JL=$(submit long)
rd -c "sched run"
wait_json 60 "job show $JL" workers.0.state running
S=$(snapshot_books)
rd -c "node set n1 --agent none"
expect_refused 1 "$S" "node set --agent: node 'n1' holds 1 worker(s)"
rd -c "node set n1 --agent maybe"
expect_refused 1 "$S" "--agent must be one of none, required, got 'maybe'"
rd -c "node add dc n9 --minion m-9 --agent sometimes"
expect_refused 1 "$S" "--agent must be one of none, required"
rd -c "node set n1 --agent required"   # its mode already: no change, even with workers
expect_status 0
rd -c "job stop $JL"
wait_json 60 "job show $JL" state stopped
wait_json 60 "node show n1" gpus_used 0
S=$(snapshot_books)
rd -c "node set n1 --agent none"
expect_refused 1 "$S" "node set --agent none: node 'n1' has an agent registered (online); stop it and run agent remove n1 first"

SNAPSHOT=snapshot
case_ "the agent is killed: once it is lost, a new job waits with agent_offline"
kill_daemon "$(agent_pid n1)" KILL
lost () { rd -c "agent check --node-timeout 1h"; json_is "node show n1" agent_online false; }
wait_until 60 lost
rd --output json -c "node show n1"
expect_json state active   # not offline yet: the node timeout is an hour
job_spec after 'echo never; exit 0'
J2=$(submit after)
rd --output json -c "sched run"
expect_json placed 0
[ "$(worker_state "$J2")" = waiting_gpus ] && pass || fail "placed on a node whose agent is lost"
[ "$(why_count "$J2" agent_offline)" = 1 ] && pass || fail "job why does not count the lost agent: $(cat "$OUT")"
rd -c "job stop $J2"

case_ "a manual node (--agent none): placement is running at once, job report ends it"
rd -c "node add dc m1 --agent none --minion m-m1 --inventory $INV/a100x4.yaml" -c "node maintenance m1 off"
expect_status 0
rd --output json -c "node show m1"
expect_json agent_mode none
job_spec manual 'echo never-run; exit 0'
JM=$(submit manual)
rd --output json -c "sched run"
expect_json placed 1
rd --output json -c "job show $JM"
expect_json workers.0.node m1
expect_json workers.0.state running
rd -c "job report $JM --worker 0 finished"
expect_status 0
rd --output json -c "job show $JM"
expect_json state finished

case_ "an agent may not register on a manual node; node set --agent required makes it agent-managed"
mkdir -p "$TMP/work-m1"
$WRAP "$BIN" agent --store "$STORE" --node m1 --work-dir "$TMP/work-m1" --heartbeat 1s --once --runtime process \
    --inventory $INV/a100x4.yaml >"$OUT" 2>"$ERR"
RC=$?
[ "$RC" != 0 ] && pass || fail "an agent registered on a manual node"
expect_err "node 'm1' is a manual node (agent_mode none)"
rd --output json -c "node set m1 --agent required"
expect_status 0
expect_json agent_mode required
expect_json agent_online false
rd -c "node maintenance m1 on"   # out of the way of the next cases
expect_status 0

case_ "job why counts gpu_unhealthy: enough GPUs only if the unhealthy one counted"
rd -c "node add dc h1 --minion m-h1 --inventory $INV/a100x4.yaml" -c "node maintenance h1 off"
expect_status 0
mkdir -p "$TMP/work-h1"
$WRAP "$BIN" agent --store "$STORE" --node h1 --work-dir "$TMP/work-h1" --heartbeat 1s --once --runtime process \
    --inventory $INV/a100x4.yaml >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
rd -c "node health report h1 0 --reason temperature --detail 'test'"
expect_status 0
job_spec four 'true' 4
J4=$(submit four)
rd --output json -c "sched run"
expect_json placed 0
[ "$(why_count "$J4" gpu_unhealthy)" = 1 ] && pass || fail "h1 not counted gpu_unhealthy: $(cat "$OUT")"
[ "$(why_count "$J4" free_gpus)" = 0 ] && pass || fail "h1 counted as short of GPUs as well"
expect_out "1 node with enough free GPUs only if their unhealthy GPUs counted"
rd -c "job stop $J4"

case_ "job why counts quota: GCP regions whose quota allows no more of the type"
openssl genrsa -out "$TMP/sa.pem" 2048 2>/dev/null
python3 -c "import json,sys; json.dump({'type':'service_account','project_id':'p1','private_key':open(sys.argv[1]+'/sa.pem').read(),'client_email':'sa@p1.iam.gserviceaccount.com'}, open(sys.argv[1]+'/sa.json','w'))" "$TMP"
rd -c "provider enable gcp --key-file $TMP/sa.json" \
   -c "region create burst --provider gcp --gcp-region us-central1 --storage-class small" \
   -c "quota set burst NVIDIA_A100_GPUS 0" -c "quota set burst CPUS 24" -c "quota set burst LOCAL_SSD_TOTAL_GB 750" \
   -c "node report burst-storage --instance running"
expect_status 0
job_spec cloudy 'true'
JQ=$(submit cloudy)
[ "$(why_count "$JQ" quota)" = 1 ] && pass || fail "the exhausted region is not counted: $(cat "$OUT")"
expect_out "1 GCP region whose quota allows no more a100 (burst: quota show REGION has limits and usage)"
rd -c "quota set burst NVIDIA_A100_GPUS 8"
[ "$(why_count "$JQ" quota)" = 0 ] && pass || fail "a region with quota left is counted: $(cat "$OUT")"
rd -c "job stop $JQ"

case_ "an older store's nodes get their agent mode with the first write, and the notice says how many"
# as a rigdeck before agent modes left them: no agent_mode, no agent_online, no mark
raw_doc () {   # raw_doc KEY PYTHON-EXPR-ON-d FILE: the current document, changed
    rd --output json -c "store dump --prefix $1"
    python3 -c "
import json, sys
d = [i['value'] for i in json.load(open(sys.argv[1]))['items'] if i['key'] == sys.argv[2]][0]
$2
json.dump(d, open(sys.argv[3], 'w'))" "$OUT" "$1" "$3"
}
raw_put () {
    case $STORE in
    etcd://*) etcdctl --endpoints "http://${STORE#etcd://}" put "$1" <"$2" >/dev/null ;;
    *) python3 - "${STORE#sqlite:}" "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("UPDATE kv SET value = ? WHERE key = ?",
               (open(sys.argv[3], "rb").read(), sys.argv[2].encode())).rowcount
db.commit()
sys.exit(0 if n == 1 else 1)
PY
    ;;
    esac
}
for n in n1 m1 h1; do
    raw_doc /rigdeck/nodes/$n "d.pop('agent_mode'); d.pop('agent_online', None)" "$TMP/$n.json"
    raw_put /rigdeck/nodes/$n "$TMP/$n.json" && pass || fail "cannot rewrite node $n"
done
raw_doc /rigdeck/meta/store "d.pop('agent_modes_set')" "$TMP/meta.json"
raw_put /rigdeck/meta/store "$TMP/meta.json" && pass || fail "cannot rewrite the meta document"
rd --output json -c "node show n1"
expect_json agent_mode ""   # reading writes nothing
[ -s "$ERR" ] && fail "a read gave a notice: $(cat "$ERR")" || pass
rd -c "account deposit default 1"
expect_status 0
expect_err "upgraded to agent modes: 2 node(s) that have had an agent are agent_mode required"
expect_err ", 1 without one are none"
rd --output json -c "node show n1"
expect_json agent_mode required
expect_json agent_online false   # its agent is lost
rd --output json -c "node show m1"
expect_json agent_mode none
rd --output json -c "node show h1"
expect_json agent_mode required
rd -c "account deposit default 1"
expect_status 0
[ -s "$ERR" ] && fail "a second write gave the notice again: $(cat "$ERR")" || pass

finish
