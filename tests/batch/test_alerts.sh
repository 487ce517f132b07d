#!/bin/sh
# Alerts: rules and their refusals, the two rules of a new store, alert
# eval's state machine driven by real node agents that are killed (by hand
# with `agent check` + `alert eval`, then by a real `rigdeck serve`),
# acknowledgement, and webhooks received by real HTTP servers started here
# (tests/batch/webhook_receiver.py): a firing and a resolved POST, a
# receiver that answers 500 at first (retried), one that never answers
# (serve keeps placing jobs, and stops promptly on SIGTERM).  Runs on
# SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

RECV=tests/batch/webhook_receiver.py
RECEIVERS=""
receiver () {   # receiver NAME MODE [N]: a receiver in $TMP/NAME; its URL in $URL
    mkdir -p "$TMP/$1"
    python3 "$RECV" "$TMP/$1" "$2" ${3:+"$3"} &
    RECEIVERS="$RECEIVERS $!"
    DAEMONS="$DAEMONS $!"
    end=$(($(date +%s) + 30))
    while [ ! -s "$TMP/$1/port" ] && [ "$(date +%s)" -le "$end" ]; do sleep 0.1; done
    URL="http://127.0.0.1:$(cat "$TMP/$1/port")/hook"
}
# post_is DIR N FIELD VALUE: the N-th POST body received in DIR has FIELD = VALUE
post_is () {
    f=$(printf '%s/%03d.json' "$1" "$2")
    [ -s "$f" ] && [ "$(python3 tests/jget.py "$3" <"$f")" = "$4" ]
}
# post_has DIR RULE STATE NODE GPU VALUE: some POST received in DIR says so
post_has () {
    python3 - "$@" <<'PY'
import glob, json, sys
d, rule, state, node, gpu, value = sys.argv[1:]
for f in sorted(glob.glob(d + "/*.json")):
    p = json.load(open(f))
    if (p["rule"], p["state"], p["node"], json.dumps(p["gpu"]), json.dumps(p["value"])) == (rule, state, node, gpu, value):
        sys.exit(0)
sys.exit(1)
PY
}
has_alert () {   # has_alert STATE RULE NODE
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "alert list --state $1" 2>/dev/null |
        python3 -c "
import json, sys
items = json.load(sys.stdin)['items']
sys.exit(0 if any(a['rule'] == '$2' and a['node'] == '$3' for a in items) else 1)"
}

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" -c "account create bob" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "node add dc n2 --minion m-2 --inventory $INV/a100x4.yaml" -c "node maintenance n2 off"
expect_status 0

case_ "a new store has the rules node-offline, gpu-unhealthy and node-runtime"
rd --output json -c "alert rule list"
expect_status 0
expect_json items.len 3
expect_json items.0.name gpu-unhealthy
expect_json items.0.metric gpu_unhealthy
expect_json items.0.op above
expect_json items.0.threshold 0
expect_json items.0.severity warning
expect_json items.0.webhook null
expect_json items.1.name node-offline
expect_json items.1.metric node_offline
expect_json items.1.severity critical
expect_json items.2.name node-runtime
expect_json items.2.metric node_runtime
expect_json items.2.severity warning
rd --output json -c "alert list"
expect_json items.len 0

case_ "alert rule add: every bad flag is refused, naming the field, changing nothing"
snap=$(snapshot)
refuse () {   # refuse STATUS MESSAGE ARGS...
    st=$1 msg=$2; shift 2
    rd -c "alert rule add $*"
    expect_refused "$st" "$snap" "$msg"
}
refuse 1 "--metric: unknown metric 'cpu_temp'" "r --metric cpu_temp --above 1"
refuse 1 "node_offline, gpu_unhealthy" "r --metric cpu_temp --above 1"
refuse 1 "--above/--below: give exactly one" "r --metric cpu_util"
refuse 1 "--above/--below: give exactly one" "r --metric cpu_util --above 1 --below 2"
refuse 1 "--above: must be a finite number" "r --metric cpu_util --above hot"
refuse 1 "--below: must be a finite number" "r --metric cpu_util --below 1e999"
refuse 1 "--for" "r --metric cpu_util --above 1 --for soon"
refuse 1 "--for" "r --metric cpu_util --above 1 --for -5s"
refuse 1 "--node/--region: give at most one" "r --metric cpu_util --above 1 --node 'n*' --region dc"
refuse 1 "--node: 'N' is not allowed" "r --metric cpu_util --above 1 --node 'N*'"
refuse 1 "--region: region 'nowhere' does not exist" "r --metric cpu_util --above 1 --region nowhere"
refuse 1 "--severity" "r --metric cpu_util --above 1 --severity info"
refuse 1 "--webhook: must start with http:// or https://" "r --metric cpu_util --above 1 --webhook ftp://x/y"
refuse 1 "--webhook: names no host" "r --metric cpu_util --above 1 --webhook http:///x"
refuse 1 "rule name" "Bad --metric cpu_util --above 1"
refuse 1 "exists already" "node-offline --metric node_offline --above 0"
refuse 2 "metric" "r --above 1"
rd --as bob -c "alert rule add r --metric cpu_util --above 90"
expect_refused 1 "$snap" "alert rule add"
rd -c "alert rule remove nothing"
expect_refused 1 "$snap" "alert rule 'nothing' does not exist"
rd --as bob -c "alert rule remove node-offline"
expect_refused 1 "$snap" "alert rule remove"
rd -c "alert list --state open"
expect_refused 1 "$snap" "--state"
rd -c "alert ack alert-00000000"
expect_refused 1 "$snap" "alert 'alert-00000000' does not exist"
rd --as bob -c "alert eval"
expect_refused 1 "$snap" "alert eval"

case_ "alert rule add: a good rule, listed as given"
rd --output json -c "alert rule add hot --metric gpu_temp_c --above 85.5 --for 2m --node 'n[12]' --severity critical --webhook https://hooks.example/x"
expect_status 0
expect_json threshold 85.5
expect_json for_s 120
expect_json node "n[12]"
expect_json region null
rd --output json -c "alert rule add idle --metric cpu_util --below 5 --region dc"
expect_json op below
expect_json severity warning
rd --output json -c "alert rule list"
expect_json items.len 5
rd -c "alert rule remove idle" -c "alert rule remove hot"
expect_status 0

case_ "a quiet fleet: alert eval changes nothing and writes nothing"
rd --output json -c "alert eval"
expect_status 0
before=$(revision)
rd --output json -c "alert eval"
expect_json changes.len 0
[ "$(revision)" = "$before" ] && pass || fail "a quiet alert eval wrote to the store"

case_ "a removed default rule stays removed"
rd -c "alert rule remove gpu-unhealthy" -c "alert eval"
expect_status 0
rd --output json -c "alert rule list"
expect_json items.len 2
expect_json items.0.name node-offline

case_ "node_offline by hand: a killed agent, agent check, alert eval fires; --for waits in a pending record"
rd -c "alert rule add slow --metric node_offline --above 0 --for 3s --node n2"
expect_status 0
start_agent n2 --inventory $INV/a100x4.yaml
wait_json 60 "node show n2" agent.state online
kill_daemon "$(agent_pid n2)" KILL
node_offline_now () {
    $WRAP "$BIN" --batch --store "$STORE" -c "agent check --node-timeout 1s" >/dev/null 2>&1
    json_is "node show n2" state offline
}
wait_until 60 node_offline_now
rd --output json -c "alert eval"
expect_status 0
expect_json changes.len 1
expect_json changes.0.rule node-offline
expect_json changes.0.state firing
expect_json changes.0.node n2
expect_json changes.0.gpu null
expect_json changes.0.value 1
expect_json changes.0.severity critical
rd --output json -c "alert list --state pending"
expect_json items.len 1
expect_json items.0.rule slow
rd --output json -c "alert list"
expect_json items.len 1
expect_json items.0.rule node-offline
expect_json items.0.state firing
expect_json items.0.node n2
expect_json items.0.gpu null
expect_json items.0.value 1
expect_json items.0.resolved_at null
expect_json items.0.acked_by null
ID=$(jget items.0.id)
case "$ID" in alert-????????) pass ;; *) fail "id '$ID' is not alert-XXXXXXXX" ;; esac
fired_at=$(jget items.0.fired_at)
[ -n "$fired_at" ] && [ "$fired_at" != null ] && pass || fail "no fired_at"
slow_fires () {
    $WRAP "$BIN" --batch --store "$STORE" -c "alert eval" >/dev/null 2>&1
    has_alert firing slow n2
}
wait_until 30 slow_fires
before=$(revision)
rd --output json -c "alert eval"
expect_json changes.len 0
[ "$(revision)" = "$before" ] && pass || fail "alert eval with nothing new wrote to the store"

case_ "alert ack: acked_by is the acting account; others may not"
rd --as bob -c "alert ack $ID"
expect_status 1
expect_err "alert ack"
rd --output json -c "alert ack $ID"
expect_status 0
expect_json acked_by default
expect_json id "$ID"
rd --output json -c "alert list"
python3 -c "
import json, sys
a = [x for x in json.load(open('$OUT'))['items'] if x['id'] == '$ID'][0]
assert a['acked_by'] == 'default' and a['acked_at'], a
" && pass || fail "the listed alert is not acknowledged"

case_ "the agent returns: alert eval resolves both alerts"
start_agent n2 --inventory $INV/a100x4.yaml
wait_json 60 "node show n2" state active
rd --output json -c "alert eval"
expect_json changes.len 2
expect_json changes.0.state resolved
expect_json changes.0.value 0
rd --output json -c "alert list"
expect_json items.len 0
rd --output json -c "alert list --state resolved"
expect_json items.len 2
rd --output json -c "alert list --state all"
python3 -c "
import json
a = [x for x in json.load(open('$OUT'))['items'] if x['id'] == '$ID'][0]
keys = {'id', 'rule', 'severity', 'state', 'node', 'gpu', 'value', 'fired_at', 'resolved_at', 'acked_by'}
assert keys <= set(a), a
assert a['state'] == 'resolved' and a['resolved_at'] and a['value'] == 1 and a['acked_by'] == 'default', a
" && pass || fail "the resolved alert lacks a field: $(cat "$OUT")"
rd -c "alert rule remove slow"
expect_status 0

case_ "serve: webhooks get the firing and the resolved POST; a receiver answering 500 first is retried"
receiver ok ok
URL_OK=$URL
receiver flaky fail-first 2
URL_FLAKY=$URL
rd -c "alert rule add down --metric node_offline --above 0 --node n1 --webhook $URL_OK" \
   -c "alert rule add down-flaky --metric node_offline --above 0 --node 'n1*' --severity critical --webhook $URL_FLAKY"
expect_status 0
start_agent n1 --inventory $INV/a100x4.yaml
wait_json 60 "node show n1" agent.state online
start_serve s1 --node-timeout 3s --sched-every 1s
wait_json 60 "serve status" leader.pid "$PID_s1"
kill_daemon "$(agent_pid n1)" KILL
wait_until 60 has_alert firing down n1
wait_until 30 post_is "$TMP/ok" 1 state firing
for f in rule:down state:firing node:n1 gpu:null value:1 severity:warning; do
    post_is "$TMP/ok" 1 "${f%%:*}" "${f#*:}" && pass || fail "first POST: ${f%%:*} is not ${f#*:}: $(cat "$TMP/ok/001.json")"
done
python3 -c "
import json
p = json.load(open('$TMP/ok/001.json'))
assert set(p) == {'rule', 'state', 'node', 'gpu', 'value', 'at', 'severity'}, p
" && pass || fail "the payload's fields are not exactly the spec's"
# the flaky receiver answered 500 twice; the third try got through
wait_until 60 post_is "$TMP/flaky" 3 rule down-flaky
[ -s "$TMP/flaky/001.failed" ] && [ -s "$TMP/flaky/002.failed" ] && pass || fail "no failed tries before the success"
post_is "$TMP/flaky" 3 state firing && pass || fail "the retried POST is not the firing"
grep -q "try 1 of 5 to $URL_FLAKY failed (HTTP 500)" "$TMP/s1.log" && pass || fail "no log line for the failed try"
grep -q "alert: down firing (warning) on n1" "$TMP/s1.log" && pass || fail "no log line for the state change"
start_agent n1 --inventory $INV/a100x4.yaml
wait_until 60 post_is "$TMP/ok" 2 state resolved
post_is "$TMP/ok" 2 value 0 && pass || fail "the resolved POST's value is not 0"
wait_until 60 post_is "$TMP/flaky" 4 state resolved
[ "$(cat "$TMP/ok/requests")" = 2 ] && pass || fail "the ok receiver got $(cat "$TMP/ok/requests") requests, want 2"
rd -c "alert rule remove down" -c "alert rule remove down-flaky"
expect_status 0

case_ "a GPU heats up: a custom gpu_temp_c rule and gpu-unhealthy fire with their webhooks; it cools and is cleared: both resolve"
SMI=$PWD/tests/agent/fake-nvidia-smi
CSV=$TMP/gpus.csv
gpus () {   # gpus TEMP0 TEMP1: two A100s at these temperatures
    {
        echo "0, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 20, 1024, $1, 95.50, 0"
        echo "1, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 0, 4, $2, 61.00, 0"
    } >"$CSV.new" && mv "$CSV.new" "$CSV"
}
gpus 41 37
receiver hot ok
rd -c "node add dc n3 --minion m-3 --inventory $INV/a100x2.yaml" -c "node maintenance n3 off" \
   -c "alert rule add gpu-hot --metric gpu_temp_c --above 80 --node n3 --severity critical --webhook $URL" \
   -c "alert rule add gpu-unhealthy --metric gpu_unhealthy --above 0 --webhook $URL"
expect_status 0
export RIGDECK_NVIDIA_SMI=$SMI FAKE_NVIDIA_SMI_CSV=$CSV
start_agent n3 --inventory $INV/a100x2.yaml --sample 1s --gpu-temp-max 85
wait_json 60 "node show n3" agent.state online
gpus 41 88
wait_until 60 post_has "$TMP/hot" gpu-hot firing n3 1 88
wait_until 60 post_has "$TMP/hot" gpu-unhealthy firing n3 1 1
rd --output json -c "alert list"
python3 -c "
import json
items = json.load(open('$OUT'))['items']
hot = [a for a in items if a['rule'] == 'gpu-hot']
assert len(hot) == 1 and hot[0]['node'] == 'n3' and hot[0]['gpu'] == 1 and hot[0]['value'] == 88, hot
assert hot[0]['severity'] == 'critical', hot
" && pass || fail "alert list does not show gpu-hot on n3 GPU 1 at 88: $(cat "$OUT")"
post_has "$TMP/hot" gpu-hot firing n3 0 41 && fail "GPU 0 (41 C) fired" || pass
gpus 41 60
wait_until 60 post_has "$TMP/hot" gpu-hot resolved n3 1 60
has_alert firing gpu-unhealthy n3 && pass || fail "gpu-unhealthy resolved before the GPU was cleared"
rd -c "node health clear n3 1"
expect_status 0
wait_until 60 post_has "$TMP/hot" gpu-unhealthy resolved n3 1 0
rd --output json -c "alert list --state resolved"
python3 -c "
import json
items = json.load(open('$OUT'))['items']
assert any(a['rule'] == 'gpu-hot' and a['gpu'] == 1 and a['resolved_at'] for a in items), items
" && pass || fail "the resolved gpu-hot alert is not listed"
unset RIGDECK_NVIDIA_SMI FAKE_NVIDIA_SMI_CSV

case_ "a receiver that never answers does not stop serve from placing jobs; SIGTERM stops serve promptly"
receiver stuck hang
rd -c "alert rule add stuck --metric node_offline --above 0 --node n2 --webhook $URL"
expect_status 0
kill_daemon "$(agent_pid n2)" KILL
wait_until 60 has_alert firing stuck n2
wait_until 30 test -s "$TMP/stuck/requests"
job_spec quick 'echo done'
J=$(submit quick)
wait_json 60 "job show $J" state finished
rd --output json -c "job show $J"
[ "$(jget workers.0.node)" != n2 ] && pass || fail "placed on the offline node n2"
t0=$(date +%s)
kill_daemon "$PID_s1" TERM
[ "$DSTATUS" = 0 ] && pass || fail "serve exited $DSTATUS on SIGTERM"
[ $(($(date +%s) - t0)) -le 5 ] && pass || fail "serve took $(($(date +%s) - t0)) s to stop with a hanging webhook"
grep -q "abandoned a change for $URL" "$TMP/s1.log" && pass || fail "no log line for the abandoned delivery"

finish
