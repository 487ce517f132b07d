#!/bin/sh
# Cloud provisioning against a fake Google Compute Engine (tests/gcp/fake_gce.py):
# the storage node, the whole burst (jobs with no on-prem capacity -> sched run
# -> cloud sync -> instances -> nodes active -> workers start -> jobs end ->
# idle release), each GCP error class, token caching and refresh on 401,
# reconcile, and interrupted or repeated rounds that never duplicate an instance.
. tests/batch/lib.sh
SP=tests/specs/sched
INV=tests/inventories
export RIGDECK_MASTER_KEY="$TMP/master.key"
export RIGDECK_GCP_POLL_MS=20 RIGDECK_GCP_BACKOFF_MS=10
T0=2026-11-01T00:00:00Z
LATER=2026-11-01T00:11:00Z     # past the region's 10m idle release
END=2026-11-01T00:30:00Z       # the burst jobs end
END_SOON=2026-11-01T00:35:00Z
END_LATER=2026-11-01T00:41:00Z

# ---- the fake -----------------------------------------------------------------
openssl genrsa -out "$TMP/sa.pem" 2048 2>/dev/null
openssl genrsa -out "$TMP/other.pem" 2048 2>/dev/null
mkkey () { # mkkey PEM OUT [PORT]
    python3 -c "
import json, sys
k = {'type': 'service_account', 'project_id': 'p1', 'private_key_id': 'k1', 'private_key': open(sys.argv[1]).read(),
     'client_email': 'sa@p1.iam.gserviceaccount.com'}
if len(sys.argv) > 3: k['token_uri'] = 'http://127.0.0.1:%s/token' % sys.argv[3]
json.dump(k, open(sys.argv[2], 'w'))" "$@"
}
mkkey "$TMP/sa.pem" "$TMP/fake-key.json"
python3 tests/gcp/fake_gce.py --key "$TMP/fake-key.json" --port-file "$TMP/port" --log "$TMP/fake.log" >"$TMP/fake.out" 2>&1 &
FAKE_PID=$!
trap 'kill $FAKE_PID 2>/dev/null; rm -rf "$TMP"' EXIT
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "fake_gce did not start: $(cat "$TMP/fake.out")"; echo "batch-summary: passed=0 failed=1"; exit 1; }
FAKE=http://127.0.0.1:$PORT
export RIGDECK_GCP_ENDPOINT=$FAKE/compute/v1
mkkey "$TMP/sa.pem" "$TMP/sa.json" "$PORT"
mkkey "$TMP/other.pem" "$TMP/other.json" "$PORT"   # same account name, a key Google never issued

FAKECLI="python3 tests/gcp/fake_gce.py --client $FAKE"
ctl () { $FAKECLI --post "$1"; }        # ctl JSON: a control request to the fake
fake () { $FAKECLI --field "$1"; }      # fake PATH: a field of the fake's state
fake_inst () { $FAKECLI --field "instance.$1.$2"; }   # a field of one instance ('' when absent)
node_field () { rd --output json -c "node show $1"; jget "$2"; }
worker () { rd --output json -c "job show $1"; jget "workers.$2.$3"; }
submit () { rd --as alice --output json -c "job submit $SP/$1.yaml"; JOB=$(jget id); }
# burst_one: a one-GPU A100 job that bursts; $JOB and $EPH (its node), $INST (its instance).
burst_one () {
    submit a100-1-cheap
    rd --output json -c "sched run"
    EPH=$(worker "$JOB" 0 pending_node)
    INST=rigdeck-$EPH
}
sync () { rd --as alice --output json "$@" -c "cloud sync"; }

ctl '{"quotas": {"us-central1": {"NVIDIA_A100_GPUS": 2, "CPUS": 24, "LOCAL_SSD_TOTAL_GB": 750}}}'

# The base: alice owns one 4xA100 node; bursts go to her GCP region.
rd -c "account create alice --plan team" -c "account create bob --plan team" -c "account create carol --plan team" \
   -c "account deposit alice 100" -c "account deposit carol 100"
rd --as alice -c "provider enable physical" -c "region create lab --provider physical --storage local" \
   -c "node add lab a-1 --agent none --minion m-a1 --inventory $INV/a100x4.yaml" -c "node maintenance a-1 off" \
   -c "provider enable gcp --key-file $TMP/sa.json" \
   -c "region create burst --provider gcp --gcp-region us-central1 --storage-class small --agent none"
expect_status 0

case_ "cloud sync provisions a new GCP region's storage node"
sync
expect_status 0
expect_json created.0.node burst-storage
expect_json created.0.zone us-central1-a
expect_json created.0.machine_type n2-standard-4
expect_json activated.0.node burst-storage
expect_json errors.len 0
[ "$(fake_inst rigdeck-burst-storage status)" = RUNNING ] && pass || fail "storage instance not running in the fake"
[ "$(node_field burst-storage state)" = active ] && pass || fail "storage node not active"
rd --output json -c "region show burst"
expect_json state active

case_ "quota show on a GCP region shows the numbers the API gave"
rd --as alice --output json -c "quota show burst"
expect_out '"metric": *"NVIDIA_A100_GPUS", *"limit": *2'
expect_out '"metric": *"N2_CPUS", *"limit": *24, *"usage": *4'
expect_json runnable.a100 2
ctl '{"quotas": {"us-central1": {"NVIDIA_T4_GPUS": 3}}}'
rd --as alice --output json -c "quota refresh burst"
expect_status 0
expect_json source gcp
expect_out '"metric": *"NVIDIA_T4_GPUS", *"limit": *3'
expect_json runnable.t4 2   # min(3 GPUs, 24 CPUs / 8, 750 GB local SSD / 375)
rd --as bob -c "quota refresh burst"
expect_status 1
expect_err "region 'burst' does not exist"   # alice's private region: hidden, as if missing

case_ "own the base: jobs with no on-prem capacity burst into GCP"
submit a100-4
BASE=$JOB
rd --output json -c "sched run"
expect_json placed 1
[ "$(worker "$BASE" 0 node)" = a-1 ] && pass || fail "the 4-GPU job did not run on the owned node"
submit a100-1-cheap
J1=$JOB
submit a100-1-cheap
J2=$JOB
rd --output json -c "sched run"
expect_json waiting_for_cloud 2
E1=$(worker "$J1" 0 pending_node)
E2=$(worker "$J2" 0 pending_node)
[ -n "$E1" ] && [ -n "$E2" ] && pass || fail "no burst nodes recorded"
[ "$(node_field "$E1" state)" = provisioning ] && pass || fail "burst node not provisioning"
[ "$(fake instance_count)" = 1 ] && pass || fail "sched run must not touch GCP"

case_ "cloud sync creates the instances: GPUs, TERMINATE on host maintenance, local SSD"
sync
expect_status 0
expect_json created.len 2
expect_json errors.len 0
[ "$(jget activated.len)" = 2 ] && pass || fail "expected both burst nodes activated"
[ "$(fake instance_count)" = 3 ] && pass || fail "expected 3 instances in the fake"
[ "$(fake_inst "rigdeck-$E1" machine_type)" = a2-highgpu-1g ] && pass || fail "wrong machine type"
[ "$(fake_inst "rigdeck-$E1" accelerator)" = nvidia-tesla-a100 ] && pass || fail "no A100 attached"
[ "$(fake_inst "rigdeck-$E1" accelerator_count)" = 1 ] && pass || fail "wrong accelerator count"
[ "$(fake_inst "rigdeck-$E1" on_host_maintenance)" = TERMINATE ] && pass || fail "GPU instance must TERMINATE on host maintenance"
[ "$(fake_inst "rigdeck-$E1" local_ssd)" = 1 ] && pass || fail "no local SSD"
[ "$(node_field "$E1" state)" = active ] && pass || fail "burst node not active"
[ "$(node_field "$E2" gcp_zone)" = us-central1-a ] && pass || fail "burst node not in the storage node's zone"
[ "$(fake counters.operations_get)" -ge 6 ] && pass || fail "operations were not polled"

case_ "the next sched run starts the workers on them, at the usage fee"
rd --output json -c "sched run"
expect_json placed 2
[ "$(worker "$J1" 0 node)" = "$E1" ] && pass || fail "worker not on its cloud node"
[ "$(worker "$J2" 0 price_ucr)" = 250000 ] && pass || fail "cloud price is not the usage fee"

case_ "a repeated cloud sync creates nothing and writes nothing"
before=$(revision)
ctl '{"reset_counters": true}'
sync
expect_json created.len 0
expect_json errors.len 0
[ "$(fake counters.instances_insert)" = "" ] && pass || fail "a repeated sync inserted again"
[ "$(revision)" = "$before" ] && pass || fail "a sync with nothing to do wrote to the store"

case_ "token: cached for the process; a 401 triggers exactly one refresh"
ctl '{"reset_counters": true}'
rd --as alice --output json -c "cloud sync" -c "cloud sync"
expect_json errors.len 0
[ "$(fake counters.token_issued)" = 1 ] && pass || fail "two syncs in one process fetched $(fake counters.token_issued) tokens"
ctl '{"reset_counters": true}'
ctl '{"fail_next": "401", "method": "regions.get"}'
sync
expect_status 0
expect_json errors.len 0
[ "$(fake counters.token_issued)" = 2 ] && pass || fail "a 401 must fetch exactly one new token, got $(fake counters.token_issued) tokens"
[ "$(fake counters.regions_get)" = 2 ] && pass || fail "the call refused with 401 was not retried once"
ctl '{"reset_counters": true}'
ctl '{"fail_next": "401", "method": "*", "count": 2}'
sync
expect_json errors.0.code unauthenticated
expect_out "401 UNAUTHENTICATED"
[ "$(fake counters.token_issued)" = 2 ] && pass || fail "a second 401 must not loop on refreshes"

case_ "jobs end; their nodes stay until idle longer than --idle-release, then go"
rd --as alice --now "$END" -c "job report $J1 --worker 0 finished" -c "job report $J2 --worker 0 finished"
expect_status 0
sync --now "$END_SOON"
expect_json released.len 0
[ "$(fake instance_count)" = 3 ] && pass || fail "released before the idle time"
sync --now "$END_LATER"
expect_json released.len 2
expect_json released.0.reason idle
expect_json errors.len 0
[ "$(fake instance_count)" = 1 ] && pass || fail "instances left running after release"
[ "$(node_field "$E1" state)" = removed ] && pass || fail "released node not removed"
rd --as alice --output json -c "quota show burst"
expect_json runnable.a100 2
rd --as alice --output json -c "ledger entries --kind usage_fee"
expect_out "on $E1"
expect_out "on $E2"
rd --output json -c "ledger verify"
expect_status 0

case_ "error: QUOTA_EXCEEDED drops the node and sends the worker back to the scheduler"
burst_one
ctl '{"fail_next": "QUOTA_EXCEEDED"}'
sync
expect_status 0
expect_json errors.0.code quota_exceeded
expect_json errors.0.retry false
expect_out "gcp us-central1: instances.insert $INST in us-central1-a failed: QUOTA_EXCEEDED NVIDIA_A100_GPUS (limit 2)"
expect_json released.0.reason quota_exceeded
[ "$(node_field "$EPH" state)" = removed ] && pass || fail "refused node not removed"
[ "$(worker "$JOB" 0 pending_node)" = "" ] && pass || fail "worker still waits on a dropped node"
rd --output json -c "job show $JOB"
expect_out "QUOTA_EXCEEDED"
[ "$(fake_inst "$INST" status)" = "" ] && pass || fail "an instance exists for a refused insert"
rd --as alice -c "job stop $JOB"

case_ "error: ZONE_RESOURCE_POOL_EXHAUSTED moves to another zone of the region"
burst_one
ctl '{"fail_next": "ZONE_RESOURCE_POOL_EXHAUSTED"}'
sync
expect_json errors.len 0
expect_json created.0.zone us-central1-b
[ "$(fake_inst "$INST" status)" = RUNNING ] && pass || fail "instance not running in the next zone"
[ "$(node_field "$EPH" state)" = active ] && pass || fail "node not active after the zone change"
rd --as alice -c "job stop $JOB"
sync --now "$LATER"
expect_json released.0.node "$EPH"

case_ "error: every zone out of capacity keeps the node provisioning until one has some"
burst_one
ctl '{"exhausted_zones": ["us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"]}'
sync
expect_status 0
expect_json errors.0.code zone_exhausted
expect_json errors.0.retry true
expect_out "ZONE_RESOURCE_POOL_EXHAUSTED in every zone tried (us-central1-a, us-central1-b, us-central1-c, us-central1-f)"
[ "$(node_field "$EPH" state)" = provisioning ] && pass || fail "node should keep provisioning"
[ -n "$(node_field "$EPH" gcp_error)" ] && pass || fail "node does not show the last GCP error"
ctl '{"exhausted_zones": []}'
sync
expect_json activated.0.node "$EPH"
rd --as alice -c "job stop $JOB"
sync --now "$LATER"
expect_json released.0.node "$EPH"

case_ "error: 403 names the missing permission; a named region fails the command"
ctl '{"fail_next": "403", "method": "instances.list"}'
rd --as alice -c "cloud sync burst"
expect_status 1
expect_err "gcp us-central1: instances.list in us-central1-a failed: 403 PERMISSION_DENIED"
expect_err "Compute Admin"
ctl '{"fail_next": "403", "method": "instances.list"}'
sync
expect_status 0
expect_json errors.0.code permission_denied

case_ "error: 429 and 5xx are retried with backoff"
ctl '{"reset_counters": true}'
ctl '{"fail_next": "429", "method": "regions.get", "count": 2}'
ctl '{"fail_next": "503", "method": "instances.list", "count": 2}'
sync
expect_json errors.len 0
[ "$(fake counters.regions_get)" = 3 ] && pass || fail "429 not retried: $(fake counters.regions_get) calls"
ctl '{"fail_next": "500", "method": "regions.get", "count": 50}'
sync
expect_json errors.0.code unavailable
expect_out "regions.get us-central1 failed: 500 INTERNAL, still after 5 attempts with backoff"
ctl '{"clear_failures": true}'

case_ "crash: a sync killed mid-way; the next one finishes without a second instance"
burst_one
ctl '{"op_polls": 1000000, "reset_counters": true}'
$WRAP "$BIN" --batch --store "$STORE" --as alice -c "cloud sync" >/dev/null 2>&1 &
SYNC_PID=$!
i=0
while [ -z "$(fake_inst "$INST" status)" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 $SYNC_PID 2>/dev/null
wait $SYNC_PID 2>/dev/null
[ "$(fake_inst "$INST" status)" != "" ] && pass || fail "the instance was never inserted before the kill"
[ "$(node_field "$EPH" state)" = provisioning ] && pass || fail "node should still be provisioning after the crash"
ctl '{"op_polls": 3}'
sync
expect_json errors.len 0
expect_json activated.0.node "$EPH"
expect_json created.len 0
[ "$(fake inserts_by_name.$INST)" = 1 ] && pass || fail "the instance was inserted again after the crash"
rd --as alice -c "job stop $JOB"
sync --now "$LATER"
expect_json released.0.node "$EPH"

case_ "crash: an insert whose answer is lost is not duplicated (ALREADY_EXISTS is success)"
burst_one
ctl '{"fail_next": "drop", "method": "instances.insert", "reset_counters": true}'
sync
expect_json errors.len 0
expect_json created.0.existed true
expect_json activated.0.node "$EPH"
[ "$(fake inserts_by_name.$INST)" = 2 ] && pass || fail "the lost insert was not retried"
n=$($FAKECLI --field instances | grep -o "\"$INST\"" | wc -l)
[ "$n" = 1 ] && pass || fail "$n instances named $INST"

case_ "reconcile: a vanished instance makes its node offline; strays are reported"
ctl "{\"remove_instance\": {\"zone\": \"us-central1-a\", \"name\": \"$INST\"}}"
ctl '{"add_instance": {"zone": "us-central1-c", "name": "stray-vm"}}'
sync
expect_json offline.0.node "$EPH"
expect_json orphaned.0.instance stray-vm
expect_json orphaned.0.zone us-central1-c
[ "$(node_field "$EPH" state)" = offline ] && pass || fail "node of a vanished instance not offline"
rd --as alice -c "job stop $JOB"
sync --now "$LATER"
expect_json released.0.node "$EPH"

case_ "reconcile: a stopped storage instance is started again"
ctl '{"stop_instance": {"zone": "us-central1-a", "name": "rigdeck-burst-storage"}}'
sync
expect_json offline.0.node burst-storage
expect_json activated.0.node burst-storage
[ "$(fake_inst rigdeck-burst-storage status)" = RUNNING ] && pass || fail "storage instance not restarted"

case_ "a node nobody waits for any more is released without an instance"
burst_one
rd --as alice -c "job stop $JOB"
ctl '{"reset_counters": true}'
sync
expect_json released.0.node "$EPH"
expect_json released.0.reason not_needed
[ "$(fake counters.instances_insert)" = "" ] && pass || fail "an instance was created for a canceled job"

case_ "a key Google did not issue is refused at the token endpoint"
rd --as carol -c "provider enable gcp --key-file $TMP/other.json" \
   -c "region create cburst --provider gcp --gcp-region us-central1 --storage-class micro --agent none"
rd --as carol -c "cloud sync cburst"
expect_status 1
expect_err "token request failed: 400 invalid_grant: Invalid JWT Signature"
rd --as carol --output json -c "cloud sync"
expect_json errors.0.code unauthenticated

case_ "only the owner (or an admin) syncs a region; physical regions have nothing to sync"
rd --as bob -c "cloud sync burst"
expect_status 1
expect_err "region 'burst' does not exist"
rd --as alice -c "cloud sync lab"
expect_status 1
expect_err "physical region"
rd --as bob --output json -c "cloud sync"
expect_json regions.len 0
rd --output json -c "cloud sync"
expect_out '"regions": *\["burst", *"cburst"\]'

case_ "region remove: a GCP region with no VM yet goes at once"
rd --as alice -c "region create gone --provider gcp --gcp-region us-east1 --storage-class small --agent none"
expect_status 0
rd --as alice --output json -c "region remove gone"
expect_status 0
expect_json state removed
rd -c "region show gone"
expect_status 1

case_ "region remove: a GCP region's storage VM is deleted before its records go"
rd --as alice -c "region create gone2 --provider gcp --gcp-region us-west1 --storage-class small --agent none"
expect_status 0
sync
[ "$(fake_inst rigdeck-gone2-storage status)" = RUNNING ] && pass || fail "gone2 storage instance not running"
rd --as alice --output json -c "region remove gone2"
expect_status 0
expect_json state removing
[ "$(node_field gone2-storage state)" = maintenance ] && pass || fail "storage node not taken out of service"
[ "$(fake_inst rigdeck-gone2-storage status)" = RUNNING ] && pass || fail "VM deleted before cloud sync"
rd --as alice --output json -c "region show gone2"
expect_json state removing
sync
expect_status 0
expect_json removed_regions.0.region gone2
expect_out '"node": *"gone2-storage", *"instance": *"rigdeck-gone2-storage", *"reason": *"region_removed"'
[ "$(fake_inst rigdeck-gone2-storage status)" = "" ] && pass || fail "storage VM of a removed region still exists"
[ "$(node_field gone2-storage state)" = removed ] && pass || fail "storage node not removed"
rd -c "region show gone2"
expect_status 1
sync
expect_out '"regions": *\["burst"\]'

case_ "the controller runs cloud sync rounds by itself (rigdeck serve)"
ctl '{"quotas": {"us-west1": {"NVIDIA_A100_GPUS": 2, "CPUS": 24, "LOCAL_SSD_TOTAL_GB": 750}}}'
rd --as alice -c "region create burst3 --provider gcp --gcp-region us-west1 --storage-class small --agent none"
expect_status 0
$WRAP "$BIN" serve --store "$STORE" --once 2>"$TMP/serve.log"
RC=$?
expect_status 0
grep -q "cloud: cloud sync round done" "$TMP/serve.log" && pass || fail "serve ran no cloud sync: $(cat "$TMP/serve.log")"
[ "$(fake_inst rigdeck-burst3-storage status)" = RUNNING ] && pass || fail "serve did not provision burst3's storage node"

case_ "a region whose cloud nodes run agents creates no instance on an SQLite store"
case $STORE in
sqlite:*)
    rd --as alice -c "region create agentful --provider gcp --gcp-region us-east1 --storage-class small"
    expect_status 0
    n0=$(fake instance_count)
    rd --as alice -c "cloud sync agentful"
    expect_status 1
    expect_err "region 'agentful' runs an agent on each cloud node, and no cloud instance can reach this SQLite store"
    expect_err_lines 1
    [ "$(fake instance_count)" = "$n0" ] && pass || fail "an instance was created for an SQLite store"
    rd --as alice -c "region set agentful --agent none" -c "cloud sync agentful"
    expect_status 0
    [ "$(fake_inst rigdeck-agentful-storage status)" = RUNNING ] && pass || fail "--agent none region not provisioned"
    ;;
*) pass ;;   # tests/etcd/test_cloud_agent.sh runs agents on etcd
esac

rd --output json -c "ledger verify"
expect_status 0
finish
