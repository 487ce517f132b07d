#!/bin/sh
# Vital stats and GPU health from a real agent: its readings reach
# `metrics show` within a sample and fold into minutes; a GPU that heats
# up, gains ECC errors or falls off the bus is reported unhealthy and gets
# no new work; a node whose GPUs are all unhealthy goes to maintenance
# (reason health); only `node health clear` brings them back.  The GPU
# readings come from a stand-in nvidia-smi reading a file the test rewrites.
# Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

SMI=$PWD/tests/agent/fake-nvidia-smi
CSV=$TMP/gpus.csv
export RIGDECK_NVIDIA_SMI=$SMI FAKE_NVIDIA_SMI_CSV=$CSV
# gpus TEMP0 ECC0 TEMP1 ECC1: both A100s, or only GPU 0 when TEMP1 is "gone"
gpus () {
    {
        echo "0, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 20, 1024, $1, 95.50, $2"
        [ "$3" = gone ] || echo "1, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 0, 4, $3, 61.00, $4"
    } >"$CSV.new" && mv "$CSV.new" "$CSV"
}
gpus 41 0 37 0

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x2.yaml" -c "node maintenance n1 off" \
   -c "node add dc n2 --minion m-2 --inventory $INV/a100x2.yaml"
expect_status 0

case_ "metrics show and node health refuse bad input and change nothing"
S=$(snapshot)
rd -c "metrics show ghost"
expect_refused 1 "$S" "node 'ghost'"
rd -c "metrics show n1 --metric temperature"
expect_refused 1 "$S" "--metric: unknown stat 'temperature'"
rd -c "metrics show n1 --metric gpu_temp_c --gpu 2"
expect_refused 1 "$S" "--gpu: node 'n1' has GPUs 0..1"
rd -c "metrics show n1 --metric cpu_util --gpu 0"
expect_refused 1 "$S" "--gpu: cpu_util is a stat of the node"
rd -c "metrics show n1 --since 2026-11-02T00:00:00Z --until 2026-11-01T00:00:00Z"
expect_refused 1 "$S" "--since: must be before --until"
rd -c "metrics show n1 --since 2020-01-01T00:00:00Z"
expect_refused 1 "$S" "minute points are kept for 48 hours"
rd -c "metrics show n1 --step 5m"
expect_refused 1 "$S" "--step"
rd -c "node health clear n1"
expect_refused 1 "$S" "node 'n1' has no unhealthy GPU"
rd -c "node health clear n1 7"
expect_refused 1 "$S" "there is no GPU 7"
rd -c "node health report n1 0 --reason temperature"
expect_refused 1 "$S" "node 'n1' has no agent"
rd -c "node health report n1 0 --reason hot"
expect_refused 1 "$S" "--reason"
rd -c "metrics import n1 $TMP/none.jsonl"
expect_refused 1 "$S" "FILE .*none.jsonl: cannot open"

case_ "a node without readings shows none"
rd --output json -c "metrics show n1"
expect_json points "[]"
expect_json gpu null
rd --output json -c "node show n1"
expect_json gpu_health.len 2
expect_json gpu_health.1.state healthy

case_ "metrics import: a node without an agent gets readings from a file"
samples () {   # samples FILE MINUTES_AGO... : one sample per given minute ago
    f=$1; shift
    python3 - "$@" >"$f" <<'PY'
import json, sys, time
now = int(time.time())
for ago in sys.argv[1:]:
    t = now - int(ago) * 60
    print(json.dumps({"t": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)), "cpu_util": 50 + int(ago) % 50,
                      "mem_used_gb": 100.5, "gpus": [{"index": 0, "gpu_util": 90, "gpu_temp_c": 70},
                                                     {"index": 1, "gpu_util": 10, "gpu_temp_c": 40}]}))
PY
}
samples "$TMP/s1.jsonl" 30 20 10 1
printf '{"t": "2026-11-01T00:00:00Z", "cpu": 5}\n' >"$TMP/bad-stat.jsonl"
samples "$TMP/old.jsonl" 3000
samples "$TMP/backwards.jsonl" 5 10
S=$(snapshot)
rd -c "metrics import n2 $TMP/none.jsonl"
expect_refused 1 "$S" "FILE .*none.jsonl: cannot open"
rd -c "metrics import n2 $TMP/bad-stat.jsonl"
expect_refused 1 "$S" "'cpu' is not a node stat"
rd -c "metrics import n2 $TMP/old.jsonl"
expect_refused 1 "$S" "more than 48 hours old"
rd -c "metrics import n2 $TMP/backwards.jsonl"
expect_refused 1 "$S" "line 2: .* is not after the sample before it"
rd --as nobody -c "metrics import n2 $TMP/s1.jsonl"
expect_status 1
rd --output json -c "metrics import n2 $TMP/s1.jsonl"
expect_status 0
expect_json samples 4
rd --output json -c "metrics show n2 --metric gpu_util --gpu 0"
expect_json points.len 4
expect_json points.0.avg 90.0
rd --output json -c "metrics show n2"
expect_json points.0.max 80.0
S=$(snapshot)
rd -c "metrics import n2 $TMP/s1.jsonl"
expect_refused 1 "$S" "is not after the node's latest reading"

case_ "an agent's first sample is in the history at once"
start_agent n1 --inventory $INV/a100x2.yaml --sample 1s --gpu-temp-max 85
wait_json 60 "node show n1" agent.state online
has_points () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "metrics show n1 --metric $1 --gpu 1" 2>/dev/null |
        python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d['points'] and d['points'][-1]['max'] == float(sys.argv[1])" "$2"
}
wait_until 60 has_points gpu_temp_c 37
rd --output json -c "metrics show n1 --metric gpu_temp_c --gpu 1"
expect_json metric gpu_temp_c
expect_json gpu 1
expect_json step 1m
rd --output json -c "metrics show n1"
expect_json metric cpu_util
rd --output json -c "metrics show n1 --metric gpu_temp_c --gpu 1 --step 1h"
expect_json points.len 1
rd --output json -c "node show n1"
expect_json agent.vitals.gpus.1.gpu_temp_c 37.0
rd --output json -c "metrics fleet"
expect_json gpus 4
expect_json gpus_healthy 4
expect_json nodes_reporting 2

case_ "a GPU that heats up is unhealthy within a sample, and gets no new work"
gpus 41 0 88 0
wait_json 60 "node show n1" gpu_health.1.reason temperature
rd --output json -c "node show n1"
expect_json gpu_health.1.state unhealthy
expect_json gpu_health.0.state healthy
expect_json state active
wait_until 30 has_points gpu_temp_c 88
job_spec two 'true' 2
J2=$(submit two)
job_spec one 'sleep 600' 1
J1=$(submit one)
rd -c "sched run"
expect_status 0
wait_json 60 "job show $J1" state running
rd --output json -c "job show $J1"
expect_json workers.0.node n1
expect_json workers.0.alloc.0.gpu 0
rd --output json -c "job show $J2"
expect_json state waiting_gpus
grep -q "GPU 1 is unhealthy (temperature: 88 C reached the 85 C limit)" "$TMP/agent-n1.log" && pass ||
    fail "agent log lacks the health line"

case_ "ECC errors on the last healthy GPU: the node drains for health"
gpus 41 3 40 0
wait_json 60 "node show n1" gpu_health.0.reason ecc
rd --output json -c "node show n1"
expect_json state draining
expect_json maintenance_reason health
rd --output json -c "metrics fleet"
expect_json gpus_unhealthy 2
rd -c "job stop $J1"
wait_json 60 "node show n1" state maintenance

case_ "a GPU that cooled down stays unhealthy until an operator clears it"
rd --output json -c "node show n1"
expect_json gpu_health.1.state unhealthy
rd --output json -c "node health clear n1 1"
expect_status 0
expect_json gpu_health.1.state healthy
expect_json gpu_health.0.state unhealthy
expect_json state active
rd -c "node health clear n1"
expect_status 0
wait_until 30 grep -q "GPU 0 was cleared; watching it again" "$TMP/agent-n1.log"
rd --output json -c "node show n1"
expect_json gpu_health.0.state healthy
rd -c "sched run"
wait_json 60 "job show $J2" state finished

case_ "a GPU that falls off the bus is unhealthy: missing"
gpus 41 3 gone 0
wait_json 60 "node show n1" gpu_health.1.reason missing
rd --output json -c "node show n1"
expect_json gpu_health.0.state healthy

case_ "clearing a GPU that is still too hot: reported again at the next sample"
gpus 41 3 90 0
rd -c "node health clear n1 1"
expect_status 0
wait_json 60 "node show n1" gpu_health.1.reason temperature

case_ "the agent stops on SIGTERM; a new one continues the same minutes"
kill_daemon "$(agent_pid n1)" TERM
[ "$DSTATUS" = 0 ] && pass || fail "agent exit status $DSTATUS"
rd --output json -c "metrics show n1 --metric gpu_temp_c --gpu 0"
before=$(jget points.len)
start_agent n1 --inventory $INV/a100x2.yaml --sample 1s
wait_json 60 "node show n1" agent.state online
wait_until 30 has_points gpu_temp_c 90
rd --output json -c "metrics show n1 --metric gpu_temp_c --gpu 0"
after=$(jget points.len)
[ "$after" -ge "$before" ] && [ "$after" -le $((before + 15)) ] && pass || fail "points $before -> $after"
kill_daemon "$(agent_pid n1)" TERM

case_ "metrics prune: the history of a removed node goes, in steps, and nothing else"
rd -c "node add dc n3 --minion m-3 --inventory $INV/a100x2.yaml" -c "account create alice"
samples "$TMP/s3.jsonl" $(seq 2820 -10 10)
rd --output json -c "metrics import n3 $TMP/s3.jsonl"
expect_json samples 282
count_docs () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "store dump" 2>/dev/null |
        python3 -c "import json, sys; print(sum(1 for i in json.load(sys.stdin)['items'] if '/metrics/' in i['key'] and '/$1' in i['key']))"
}
[ "$(count_docs n3)" -gt 250 ] && pass || fail "n3 has $(count_docs n3) metrics documents after a 47-hour import"
n1docs=$(count_docs n1)
rd --output json -c "metrics prune"
expect_json documents 0
# the stopped agent's lease runs out on its own time (its alive key and
# record may go while the refusal is checked): everything else must stay
snapshot_but_agent () {
    $WRAP "$BIN" --batch --store "$STORE" --output json -c "store dump" 2>/dev/null | python3 -c '
import json, sys
items = [i for i in json.load(sys.stdin)["items"] if not i["key"].startswith(("/rigdeck/agent-alive/", "/rigdeck/agents/"))]
for i in items:
    i.pop("mod_revision", None)
print(json.dumps(items, sort_keys=True))' | md5sum
}
S=$(snapshot_but_agent)
rd --as alice -c "metrics prune"
SNAPSHOT=snapshot_but_agent expect_refused 1 "$S" "only an administering account"
rd -c "node remove n3"
expect_status 0
rd --output json -c "metrics prune"
expect_status 0
expect_json nodes '["n3"]'
[ "$(count_docs n3)" = 0 ] && pass || fail "n3 still has $(count_docs n3) metrics documents"
[ "$(count_docs n1)" = "$n1docs" ] && pass || fail "n1's history changed: $n1docs -> $(count_docs n1)"
rd --output json -c "metrics prune"
expect_json documents 0

finish
