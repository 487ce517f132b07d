#!/bin/sh
# Scheduler scenarios: job submission, placement rules, prices, fractional
# GPUs, draining, queue order and fairness, regional pins, concurrency.
. tests/batch/lib.sh
INV=tests/inventories
SP=tests/specs/sched
export RIGDECK_MASTER_KEY="$TMP/master.key"

# submit SPEC [--as A] [flags]: submits and leaves the job id in $JOB.
submit () {
    spec=$1; shift
    rd --output json "$@" -c "job submit $SP/$spec.yaml"
    JOB=$(jget id)
}
worker () { # worker JOB N FIELD
    rd --output json -c "job show $1"
    jget "workers.$2.$3"
}
node_field () { rd --output json -c "node show $1"; jget "$2"; }

# The fleet: the admin's public site (two 4xA100 nodes, a 2xRTX3090 node,
# a CPU node), alice's private lab (one 4xA100 node), and carol's private
# region nobody else may use.
rd -c "account create alice --plan team" -c "account create bob --plan team" -c "account create carol --plan team" \
   -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "node add dc gpu-a --agent none --minion m-a --inventory $INV/a100x4.yaml" \
   -c "node add dc gpu-b --agent none --minion m-b --inventory $INV/a100x4.yaml" \
   -c "node add dc ws --agent none --minion m-ws --inventory $INV/rtx3090x2.yaml" \
   -c "node add dc cpu-1 --agent none --minion m-cpu --inventory $INV/cpu.yaml" \
   -c "node maintenance gpu-a off" -c "node maintenance gpu-b off" -c "node maintenance ws off" -c "node maintenance cpu-1 off" \
   -c "price set a100 2.78" -c "price set rtx3090 0.6" -c "price set cpu 0.2"
rd --as alice -c "provider enable physical" -c "region create alab --provider physical --storage local" \
   -c "node add alab a-1 --agent none --minion m-a1 --inventory $INV/a100x4.yaml" -c "node maintenance a-1 off"
rd --as carol -c "provider enable physical" -c "region create clab --provider physical --storage local" \
   -c "node add clab c-1 --agent none --minion m-c1 --inventory $INV/rtx3090x2.yaml" -c "node maintenance c-1 off"
expect_status 0

case_ "job submit refuses a bad spec naming the field, changing nothing"
before=$(snapshot)
rd --as bob -c "job submit tests/specs/bad-disk.yaml"
expect_refused 1 "$before" "disk_size"
rd --as bob -c "job submit $SP/nope.yaml"
expect_refused 1 "$before" "cannot open"
rd --as bob -c "job submit $SP/a100-1.yaml --project nosuch"
expect_refused 1 "$before" "project 'nosuch' does not exist"

case_ "job submit answers with the job: id, waiting_gpus, workers with null node"
submit a100-2x2 --as bob
expect_status 0
expect_json state waiting_gpus
expect_json type training
expect_json creator bob
expect_json project default
expect_json workers.len 2
expect_json workers.1.node null
expect_json workers.0.gpus 2
BOBJOB=$JOB

case_ "a job is placed only while its paying account has credit"
rd -c "sched run"
rd --output json -c "sched run"
expect_json placed 0
expect_json waiting_for_credit 2
rd --as bob --output json -c "job why $BOBJOB"
expect_json credit false
expect_out "no credit left"
rd -c "account deposit bob 100" -c "account deposit alice 100" -c "account deposit carol 100" -c "account deposit default 100"

case_ "workers are placed independently; the price is the market price on others' capacity"
rd --output json -c "sched run"
expect_json placed 2
rd --as bob --output json -c "job show $BOBJOB"
expect_json state running
expect_json workers.0.state running
expect_json workers.0.price_ucr 2780000
expect_json workers.0.gpu_type a100
n0=$(jget workers.0.node); n1=$(jget workers.1.node)
[ -n "$n0" ] && [ "$n0" != null ] && pass || fail "worker 0 has no node"
# Best fit: the second 2-GPU worker fills the node the first one half-used.
[ "$n0" = "$n1" ] && pass || fail "best fit: workers on $n0 and $n1"

case_ "own capacity first, at the usage fee"
submit a100-1 --as alice
rd --output json -c "sched run"
[ "$(worker "$JOB" 0 node)" = "a-1" ] && pass || fail "alice's job not on her own node"
[ "$(worker "$JOB" 0 price_ucr)" = "250000" ] && pass || fail "own capacity price is not the usage fee"
rd --as alice -c "job stop $JOB"

case_ "other accounts' private regions are never used"
submit rtx-1 --as bob
submit rtx-1 --as bob
rd --output json -c "sched run"
[ "$(worker "$JOB" 0 node)" = "ws" ] && pass || fail "bob's rtx job not on the public ws node"
submit rtx-1 --as bob
rd --output json -c "sched run"
expect_json placed 0
rd --as bob --output json -c "job why $JOB"
expect_out '"constraint":"region_private","ruled_out":1'
expect_out '"constraint":"free_gpus","ruled_out":1'
WAITRTX=$JOB

case_ "region set --public on after creation: the next pass sees it, and off again"
rd --as carol --output json -c "region set clab --public on"
expect_status 0
expect_json public true
rd --output json -c "sched run"
expect_json placed 1
[ "$(worker "$WAITRTX" 0 node)" = "c-1" ] && pass || fail "bob's job not placed in carol's region made public"
rd --as bob -c "job stop $WAITRTX"
rd --as carol --output json -c "region set clab --public off"
expect_json public false
submit rtx-1 --as bob
rd --output json -c "sched run"
expect_json placed 0
rd --as bob --output json -c "job why $JOB"
expect_out '"constraint":"region_private","ruled_out":1'
WAITRTX=$JOB

case_ "a job waits when every place costs more than its max_price"
submit a100-1-cheap --as bob
rd --output json -c "sched run"
[ "$(worker "$JOB" 0 state)" = "waiting_gpus" ] && pass || fail "cheap job was placed"
rd --as bob --output json -c "job why $JOB"
expect_out '"constraint":"price","ruled_out":2'
expect_out "2 nodes costing more per GPU-hour than its max_price"
expect_out "max_price is 1.00 credits per GPU-hour"
expect_json eligible 0
rd --as bob -c "job stop $JOB"
rd --as bob --output json -c "job show $JOB"
expect_json state canceled

case_ "fractional GPUs pack onto one GPU only where the node shares GPUs"
rd --as bob -c "job stop $BOBJOB"
submit half --as bob
H1=$JOB
rd --output json -c "sched run"
[ "$(worker "$H1" 0 state)" = "waiting_gpus" ] && pass || fail "half-GPU job placed on a node without sharing"
rd --as bob --output json -c "job why $H1"
expect_out '"constraint":"gpu_sharing"'
rd -c "node set gpu-b --gpu-sharing on"
submit half --as bob
H2=$JOB
rd --output json -c "sched run"
expect_json placed 2
[ "$(worker "$H1" 0 node)" = gpu-b ] && [ "$(worker "$H2" 0 node)" = gpu-b ] && pass || fail "halves not on gpu-b"
rd --output json -c "node show gpu-b"
expect_json gpus_used 1
expect_json gpu_alloc.0 100
expect_json gpu_alloc.1 0
[ "$(worker "$H1" 0 gpus)" = "0.5" ] && pass || fail "worker gpus is not 0.5"
rd --as bob -c "job stop $H2"
rd --output json -c "node show gpu-b"
expect_json gpus_used 0.5

case_ "maintenance while workers run drains the node; it rests in maintenance once idle"
rd --output json -c "node maintenance gpu-b on"
expect_json state draining
submit a100-1 --as bob
rd --output json -c "sched run"
[ "$(worker "$JOB" 0 node)" != gpu-b ] && pass || fail "a draining node took new work"
rd --as bob -c "job stop $JOB"
rd --as bob -c "job stop $H1"
rd --output json -c "node show gpu-b"
expect_json state maintenance
expect_json gpus_used 0
expect_json workers.len 0
rd -c "node maintenance gpu-b off"

case_ "job report ends a worker and frees its GPUs"
submit a100-4 --as bob
rd --output json -c "sched run"
node=$(worker "$JOB" 0 node)
rd --output json -c "job report $JOB --worker 0 finished"
expect_json state finished
expect_json workers.0.ended_at 2026-11-01T00:00:00Z
[ "$(node_field "$node" gpus_used)" = 0 ] && pass || fail "GPUs not freed on $node"
before=$(snapshot)
rd -c "job report $JOB --worker 0 failed"
expect_refused 1 "$before" "not running"
rd -c "job report $JOB --worker 5 failed"
expect_refused 1 "$before" "\-\-worker must be a whole number between 0 and 0"

case_ "least recently used node first among equals"
submit a100-4 --as bob
rd --output json --now 2026-11-01T01:00:00Z -c "sched run"
first=$(worker "$JOB" 0 node)
rd --as bob --now 2026-11-01T02:00:00Z -c "job stop $JOB"
submit a100-4 --as bob
rd --output json --now 2026-11-01T03:00:00Z -c "sched run"
second=$(worker "$JOB" 0 node)
[ "$first" != "$second" ] && pass || fail "LRU: both on $first"
rd --as bob -c "job stop $JOB"

case_ "queue order: priority first; a blocked job does not block smaller ones"
rd -c "node maintenance gpu-b on"
rd --as alice -c "node maintenance a-1 on"
submit a100-4 --as bob --now 2026-11-01T04:00:00Z
BIG=$JOB
submit a100-2 --as bob --now 2026-11-01T04:00:01Z
LOW=$JOB
rd --output json --as bob --now 2026-11-01T04:00:02Z -c "job submit $SP/a100-2.yaml --priority 5"
HIGH=$(jget id)
rd --output json --now 2026-11-01T04:00:03Z -c "sched run"
# One free 4xA100 node: the priority-5 job goes first though submitted last;
# the 4-GPU job then cannot fit, and does not block the 2-GPU job behind it.
[ "$(worker "$HIGH" 0 state)" = running ] && pass || fail "priority 5 job not placed"
[ "$(worker "$BIG" 0 state)" = waiting_gpus ] && pass || fail "4-GPU job placed on a half-full node"
[ "$(worker "$LOW" 0 state)" = running ] && pass || fail "the 2-GPU job behind a blocked 4-GPU job was blocked"
BIG2=$BIG

case_ "a job waiting longer than the age limit claims capacity as it frees"
rd -c "sched config --max-wait 1h"
rd --as bob -c "job stop $LOW"
submit a100-2 --as bob --now 2026-11-01T06:00:00Z
SMALL=$JOB
rd --output json --now 2026-11-01T06:00:01Z -c "sched run"
[ "$(worker "$SMALL" 0 state)" = waiting_gpus ] && pass || fail "a young job took the GPUs an aged job waits for"
[ "$(worker "$BIG2" 0 state)" = waiting_gpus ] && pass || fail "aged job placed without room"
rd --as bob --output json --now 2026-11-01T06:00:01Z -c "job why $SMALL"
expect_out "claimed_by_older_job"
rd --as bob -c "job stop $HIGH"
rd --output json --now 2026-11-01T06:00:02Z -c "sched run"
[ "$(worker "$BIG2" 0 state)" = running ] && pass || fail "aged job did not get the freed node"
rd --as bob -c "job stop $BIG2" -c "job stop $SMALL"
rd -c "node maintenance gpu-b off"
rd --as alice -c "node maintenance a-1 off"

case_ "CPU-only jobs run on CPU capacity"
submit cpu-8 --as bob
rd --output json -c "sched run"
[ "$(worker "$JOB" 0 node)" = cpu-1 ] && pass || fail "cpu job not on cpu-1"
[ "$(worker "$JOB" 0 price_ucr)" = 200000 ] && pass || fail "cpu job price"
[ "$(node_field cpu-1 cpus_used)" = 8 ] && pass || fail "cpus_used not 8"
rd --as bob -c "job stop $JOB"

case_ "regional resources pin a job to their region"
rd --as alice -c "datastore add alab lab-nas --type nfs --address nas.local --root /data"
submit a100-pinned --as alice
rd --output json -c "sched run"
[ "$(worker "$JOB" 0 node)" = a-1 ] && pass || fail "pinned job not in alab"
submit rtx-pinned --as alice
rd --output json -c "sched run"
[ "$(worker "$JOB" 0 state)" = waiting_gpus ] && pass || fail "rtx job pinned to a region without rtx placed"
rd --as alice --output json -c "job why $JOB"
expect_json region_pin alab
expect_out "region alab: pinned by datastore lab-nas, which has no active node of a GPU type it accepts"
before=$(snapshot)
rd --as bob -c "job submit $SP/a100-pinned.yaml"
expect_refused 1 "$before" "^rigdeck: regional.datastore: datastore 'lab-nas' does not exist$"   # alice's: hidden, as if missing
rd -c "job submit $SP/a100-pinned.yaml"   # an admin sees it: told whose it is
expect_refused 1 "$before" "datastore 'lab-nas' belongs to account 'alice', not to the project owner 'default'"

case_ "dry run changes nothing"
submit a100-1 --as bob
before=$(snapshot)
rd --output json -c "sched run --dry-run"
expect_json dry_run true
expect_json placed 1
now=$(snapshot)
[ "$before" = "$now" ] && pass || fail "dry run changed the store"
rd --as bob -c "job stop $JOB"

case_ "concurrent passes never give a GPU twice"
for i in 1 2 3 4 5 6; do submit a100-1 --as bob; done
for i in 1 2 3 4; do
    $WRAP "$BIN" --batch --store "$STORE" -c "sched run" >/dev/null 2>&1 &
done
wait
rd --output json -c "node list"
jget items | python3 -c '
import json, sys
for n in json.load(sys.stdin):
    alloc = n.get("gpu_alloc") or []
    if any(a > 100 for a in alloc) or sum(alloc) != round(n["gpus_used"] * 100) or n["gpus_used"] > n["gpu_count"]:
        sys.exit("over-allocated: %s %s %s" % (n["name"], alloc, n["gpus_used"]))
' && pass || fail "a GPU was given twice"
rd --output json -c "job list --state running"
running=$(jget items.len)
rd --output json -c "job list --state waiting_gpus"
waiting=$(jget items.len)
[ $((running + waiting)) -ge 6 ] && pass || fail "jobs lost: $running running, $waiting waiting"

case_ "job stop is refused for strangers and for ended jobs"
before=$(snapshot)
rd --as carol -c "job stop $JOB"
expect_refused 1 "$before" "job '$JOB' does not exist"   # a stranger: as job show answers
rd --as bob -c "job stop $WAITRTX"
rd --as bob -c "job stop $WAITRTX"
expect_status 1
expect_err "has ended already"

case_ "bursting: a worker that fits nowhere gets an ephemeral node in its owner's GCP region"
openssl genrsa -out "$TMP/sa.pem" 2048 2>/dev/null
python3 -c "import json,sys; json.dump({'type':'service_account','project_id':'p1','private_key':open(sys.argv[1]+'/sa.pem').read(),'client_email':'sa@p1.iam.gserviceaccount.com'}, open(sys.argv[1]+'/sa.json','w'))" "$TMP"
rd --as alice -c "provider enable gcp --key-file $TMP/sa.json" \
   -c "region create burst --provider gcp --gcp-region us-central1 --storage-class small --agent none" \
   -c "quota set burst NVIDIA_A100_GPUS 8" -c "quota set burst CPUS 24" -c "quota set burst LOCAL_SSD_TOTAL_GB 750" \
   -c "node maintenance a-1 on"
expect_status 0
submit a100-1-cheap --as alice
CLOUD=$JOB
rd --output json -c "sched run"
expect_json waiting_for_cloud 0
[ "$(worker "$CLOUD" 0 state)" = waiting_gpus ] && pass || fail "placed before the region's storage node is ready"
rd --output json -c "node report burst-storage --instance running"
expect_json state active
rd --output json -c "sched run"
expect_json waiting_for_cloud 1
rd --as alice --output json -c "job show $CLOUD"
expect_json workers.0.node null
EPH=$(jget workers.0.pending_node)
expect_out "waiting for GCP node $EPH (provisioning)"
rd --output json -c "node show $EPH"
expect_json state provisioning
expect_json ephemeral true
expect_json gpu_type a100
expect_json gpu_count 1
rd --as alice --output json -c "quota show burst"
expect_json runnable.a100 1
rd --output json -c "sched run"
rd --output json -c "node list --region burst --role compute"
expect_json items.len 1

case_ "bursting: the worker starts when the cloud node is up, at the usage fee"
rd --output json -c "node report $EPH --instance running"
expect_json state active
rd --output json -c "sched run"
expect_json placed 1
[ "$(worker "$CLOUD" 0 node)" = "$EPH" ] && pass || fail "worker not on its cloud node"
[ "$(worker "$CLOUD" 0 price_ucr)" = 250000 ] && pass || fail "cloud price is not the usage fee"

case_ "bursting: exhausted quota waits, or fails when the project says so"
rd --as alice -c "quota set burst NVIDIA_A100_GPUS 1"
submit a100-1-cheap --as alice
rd --output json -c "sched run"
[ "$(worker "$JOB" 0 state)" = waiting_gpus ] && pass || fail "job did not wait on exhausted quota"
rd --as alice --output json -c "project set default --on-quota-exhausted fail"
expect_json on_quota_exhausted fail
rd --output json -c "sched run"
expect_json failed 1
rd --as alice --output json -c "job show $JOB"
expect_json state failed
expect_json reason quota_exhausted
before=$(snapshot)
rd --as alice -c "project set default --on-quota-exhausted maybe"
expect_refused 1 "$before" "\-\-on-quota-exhausted must be one of fail, move"

finish
