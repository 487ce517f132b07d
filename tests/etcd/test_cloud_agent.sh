#!/bin/sh
# test_cloud_agent.sh - a burst job on a GCP region whose cloud nodes run an
# agent (spec/execution.md §3), for real: on a real etcd, `cloud sync`
# creates the instance with a startup script; the fake GCE
# (tests/gcp/fake_gce.py --boot-dir) "boots" it by running that script on
# this machine, which starts a real `rigdeck agent --node NAME` (runtime
# process, from the boot environment); the node goes provisioning -> active
# only when the agent registers, the job runs and its output comes back
# through `job logs`.  Then: an agent that never registers is released after
# the region's idle release (agent_timeout) and its process killed; an
# `--agent none` region still makes manual nodes; an SQLite store refuses to
# create instances for agents; and on a secured etcd the script logs in as
# the node's own etcd user, which may read only that node's keys.
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
set -u
. tests/etcd/lib.sh
CA=$(mktemp -d "${TMPDIR:-/tmp}/rdcloudagent.XXXXXX")
etcd_single "$CA/etcd" >/dev/null || { echo "batch-skip: etcd did not start"; exit 0; }
export RIGDECK_TEST_STORE_URL="$ETCD_URL"
. tests/batch/lib.sh
. tests/batch/daemons.sh
FAKE_PID=""
cleanup () {
    [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null   # kills what it booted
    daemons_cleanup
    etcd_stop_all
    rm -rf "$CA"
}
trap cleanup EXIT
export RIGDECK_GCP_POLL_MS=20 RIGDECK_GCP_BACKOFF_MS=10
ROOT=$(pwd)

# ---- the fake, booting instances here -------------------------------------------
openssl genrsa -out "$TMP/sa.pem" 2048 2>/dev/null
mkkey () { # mkkey PEM OUT [PORT]
    python3 -c "
import json, sys
k = {'type': 'service_account', 'project_id': 'p1', 'private_key_id': 'k1', 'private_key': open(sys.argv[1]).read(),
     'client_email': 'sa@p1.iam.gserviceaccount.com'}
if len(sys.argv) > 3: k['token_uri'] = 'http://127.0.0.1:%s/token' % sys.argv[3]
json.dump(k, open(sys.argv[2], 'w'))" "$@"
}
mkkey "$TMP/sa.pem" "$TMP/fake-key.json"
# one A100 on each "machine", as the burst node asks for
echo "0, NVIDIA A100-SXM4-40GB, 40960, [N/A], [N/A], 0, 4, 37, 61.02, 0" >"$TMP/a100x1.csv"
python3 tests/gcp/fake_gce.py --key "$TMP/fake-key.json" --port-file "$TMP/port" --log "$TMP/fake.log" \
    --boot-dir "$CA/boot" --boot-env "PATH=$ROOT/$BUILD:$PATH" \
    --boot-env "RIGDECK_NVIDIA_SMI=$ROOT/tests/agent/fake-nvidia-smi" \
    --boot-env "FAKE_NVIDIA_SMI_CSV=$TMP/a100x1.csv" >"$TMP/fake.out" 2>&1 &
FAKE_PID=$!
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "fake_gce did not start: $(cat "$TMP/fake.out")"; echo "batch-summary: passed=0 failed=1"; exit 1; }
FAKE=http://127.0.0.1:$PORT
export RIGDECK_GCP_ENDPOINT=$FAKE/compute/v1
mkkey "$TMP/sa.pem" "$TMP/sa.json" "$PORT"
FAKECLI="python3 tests/gcp/fake_gce.py --client $FAKE"
ctl () { $FAKECLI --post "$1" >/dev/null; }
fake_inst () { $FAKECLI --field "instance.$1.$2"; }
boot_running () { [ "$($FAKECLI --field "boots.$1.running")" = true ]; }
boot_stopped () { [ "$($FAKECLI --field "boots.$1.running")" = false ]; }
node_field () { rd --output json -c "node show $1"; jget "$2"; }
worker () { rd --output json -c "job show $1"; jget "workers.$2.$3"; }
csync () { rd --as alice --output json "$@" -c "cloud sync"; }
asubmit () { rd --as alice --output json -c "job submit $TMP/$1.yaml"; jget id; }
IMAGE=projects/p1/global/images/family/rigdeck-node
ctl '{"quotas": {"us-central1": {"NVIDIA_A100_GPUS": 4, "CPUS": 48, "LOCAL_SSD_TOTAL_GB": 1500}}}'

rd -c "account create alice --plan team" -c "account deposit alice 100"
rd --as alice -c "provider enable gcp --key-file $TMP/sa.json" \
   -c "region create burst --provider gcp --gcp-region us-central1 --storage-class small --image $IMAGE"
expect_status 0

case_ "a GCP region's cloud nodes run an agent unless it says --agent none"
rd --as alice --output json -c "region show burst"
expect_json agent_mode required
expect_json image "$IMAGE"
csync
expect_status 0
expect_json activated.0.node burst-storage   # the storage node takes no work: no agent
[ "$(fake_inst rigdeck-burst-storage startup_script)" = "" ] && pass || fail "the storage node got a startup script"

case_ "cloud sync creates the instance with a startup script that starts the node's agent"
job_spec hello 'echo hello-from-the-cloud'
J=$(asubmit hello)
rd --output json -c "sched run"
expect_json waiting_for_cloud 1
EPH=$(worker "$J" 0 pending_node)
INST=rigdeck-$EPH
[ "$(node_field "$EPH" agent_mode)" = required ] && pass || fail "burst node's agent_mode is not required"
csync
expect_status 0
expect_json created.0.node "$EPH"
expect_json activated.len 0          # RUNNING is not an agent
# pending on its agent, unless the booted agent registered before this
# sync settled (a busy machine): then its agent, not RUNNING, made it active
waiting=$(jget pending.0.waiting_for)
[ "$waiting" = agent ] || [ "$(node_field "$EPH" agent_online)" = true ] && pass ||
    fail "a RUNNING instance without its agent is neither pending on it nor active by it ('$waiting')"
[ "$(fake_inst "$INST" status)" = RUNNING ] && pass || fail "instance not running"
[ "$(fake_inst "$INST" source_image)" = "$IMAGE" ] && pass || fail "instance not on the region's image"
fake_inst "$INST" startup_script >"$TMP/script"
grep -q "rigdeck agent --runtime \"\${RIGDECK_RUNTIME:-auto}\" --node '$EPH' --store '$ETCD_URL'" "$TMP/script" && pass ||
    fail "startup script does not start the node's agent: $(cat "$TMP/script")"
grep -q "etcd-user\|store.pw" "$TMP/script" && fail "an unsecured store's script carries credentials" || pass
grep -q 'master.key}"' "$TMP/script" && ! grep -q "$(cat "$RIGDECK_MASTER_KEY" 2>/dev/null || echo none-yet)" "$TMP/script" &&
    pass || fail "the master key's text is in the script"
[ "$(node_field "$EPH" state)" = provisioning ] || [ "$(node_field "$EPH" state)" = active ] && pass ||
    fail "node neither provisioning nor active"

case_ "the booted agent registers: provisioning -> active, the job runs and its output comes back"
wait_json 60 "node show $EPH" state active
rd --output json -c "agent list"
expect_out "\"name\": *\"$EPH\""
csync
expect_json activated.len 0
expect_json errors.len 0
wait_until 60 sh -c "$BIN --batch --store $STORE --output json -c 'sched run' >/dev/null; \
    $BIN --batch --store $STORE --output json -c 'job show $J' | python3 tests/jget.py state | grep -qx finished"
rd --output json -c "job show $J"
expect_json workers.0.node "$EPH"
rd -c "job logs $J --worker 0"
expect_out "hello-from-the-cloud"

case_ "released idle, the instance is deleted and what it booted is killed"
T0=$(date -u +%s)
at () { date -u -d "@$((T0 + $1 * 60))" +%Y-%m-%dT%H:%M:%SZ; }   # at MINUTES: the clock that far on
csync --now "$(at 11)"
expect_json released.0.node "$EPH"
expect_json released.0.reason idle
wait_until 30 boot_stopped "$INST"
[ "$(node_field "$EPH" state)" = removed ] && pass || fail "idle node not removed"

case_ "an instance whose agent never registers is released after the idle release (agent_timeout)"
job_spec never 'true'
J2=$(asubmit never)
rd -c "sched run"
EPH2=$(worker "$J2" 0 pending_node)
INST2=rigdeck-$EPH2
# this instance's agent is pointed at a store that does not answer
RIGDECK_CLOUD_STORE_URL=etcd://127.0.0.1:1 rd --as alice --output json --now "$(at 20)" -c "cloud sync"
expect_json pending.0.waiting_for agent
wait_until 30 boot_running "$INST2"
[ "$(node_field "$EPH2" state)" = provisioning ] && pass || fail "a node whose agent is away left provisioning"
csync --now "$(at 25)"
expect_json released.len 0
csync --now "$(at 31)"
expect_json released.0.node "$EPH2"
expect_json released.0.reason agent_timeout
[ "$(fake_inst "$INST2" status)" = "" ] && pass || fail "the instance was not deleted"
wait_until 30 boot_stopped "$INST2"
[ "$(node_field "$EPH2" state)" = removed ] && pass || fail "node not removed"
[ "$(worker "$J2" 0 pending_node)" = "" ] && pass || fail "worker still waits on the released node"
rd --as alice -c "job stop $J2"

case_ "region set --agent none: new cloud nodes are manual, active when RUNNING, no script"
rd --as alice --output json -c "region set burst --agent none"
expect_json agent_mode none
job_spec manual 'true'
J3=$(asubmit manual)
rd -c "sched run"
EPH3=$(worker "$J3" 0 pending_node)
[ "$(node_field "$EPH3" agent_mode)" = none ] && pass || fail "node of an --agent none region not manual"
csync
expect_json activated.0.node "$EPH3"
[ "$(fake_inst "rigdeck-$EPH3" startup_script)" = "" ] && pass || fail "a manual node's instance got a script"
rd --as alice -c "agent register $EPH3 --lease 1 --pid 1"
expect_status 1
rd --as alice -c "job stop $J3"
rd --as alice -c "region set burst --agent required"

case_ "refused: agents need an image"
rd --as alice -c "region create burst2 --provider gcp --gcp-region us-east1 --storage-class small"
expect_status 0
rd --as alice -c "cloud sync burst2"
expect_status 0                       # its storage node needs no image
rd --as alice --output json -c "region show burst2"
expect_json image null

case_ "refused: an SQLite store cannot be reached by cloud instances, unless --agent none"
SQL="sqlite:$TMP/other.db"
sq () { $WRAP "$BIN" --batch --store "$SQL" "$@" >"$OUT" 2>"$ERR"; RC=$?; }
sq -c "account create alice --plan team"
sq --as alice -c "provider enable gcp --key-file $TMP/sa.json" \
   -c "region create west --provider gcp --gcp-region us-west1 --storage-class small --image $IMAGE"
n0=$($FAKECLI --field instance_count)
sq --as alice -c "cloud sync west"
expect_status 1
expect_err "cloud sync: region 'west' runs an agent on each cloud node, and no cloud instance can reach this SQLite store"
expect_err_lines 1
[ "$($FAKECLI --field instance_count)" = "$n0" ] && pass || fail "an instance was created for an SQLite store"
sq --as alice -c "region set west --agent none" -c "cloud sync west"
expect_status 0
[ "$(fake_inst rigdeck-west-storage status)" = RUNNING ] && pass || fail "--agent none region not provisioned on SQLite"

case_ "secured etcd: the script logs in as the node's own etcd user, made at creation"
csync --now "$(at 60)"   # the manual node goes idle: the next job bursts again
expect_json released.0.node "$EPH3"
rd -c "store secure --root-password-file $CA/root.pw"
expect_status 0
as () {   # as ARGS...: rigdeck --batch as etcd's root
    $WRAP "$BIN" --batch --store "$STORE" --etcd-user root --etcd-password-file "$CA/root.pw" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
ectl () {   # ectl USER PASSWORD ARGS...: etcdctl as that etcd user
    u=$1 pw=$2; shift 2
    etcdctl --endpoints "$ETCD_ENDPOINTS" --user "$u" --password "$pw" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
start_serve ctl --etcd-user root --etcd-password-file "$CA/root.pw" --sched-every 1s --sync-every 1h
as --as alice --output json -c "job submit $TMP/hello.yaml"
J4=$(jget id)
wait_until 30 sh -c "$BIN --batch --store $STORE --etcd-user root --etcd-password-file $CA/root.pw --output json \
    -c 'job show $J4' | python3 tests/jget.py workers.0.pending_node | grep -q ."
as --output json -c "job show $J4"
EPH4=$(jget workers.0.pending_node)
INST4=rigdeck-$EPH4
as --as alice --output json -c "cloud sync"
expect_json created.0.node "$EPH4"
expect_json errors.len 0
fake_inst "$INST4" startup_script >"$TMP/script4"
grep -q -- "--etcd-user 'node:$EPH4' --etcd-password-file \"\$dir/store.pw\"" "$TMP/script4" && pass ||
    fail "the script does not log in as node:$EPH4: $(cat "$TMP/script4")"
PW=$(sed -n "s/^printf '%s\\\\n' '\([0-9a-f]*\)' .*/\1/p" "$TMP/script4")
[ ${#PW} = 64 ] && pass || fail "no password in the script"
grep -q "root" "$TMP/script4" && fail "the controller's own login reached the script" || pass
as --output json -c "store dump"
expect_out "credentials/node:$EPH4"
wait_json_root () { wait_until "$1" sh -c "$BIN --batch --store $STORE --etcd-user root --etcd-password-file $CA/root.pw \
    --output json -c '$2' | python3 tests/jget.py '$3' | grep -qx '$4'"; }
wait_json_root 60 "node show $EPH4" state active
wait_json_root 60 "job show $J4" state finished
as -c "job logs $J4 --worker 0"
expect_out "hello-from-the-cloud"

case_ "secured etcd: what the instance's password reaches is that node's agent role, and only while the node lives"
ectl "node:$EPH4" "$PW" get "/rigdeck/nodes/$EPH4"
expect_status 0
ectl "node:$EPH4" "$PW" get /rigdeck/jobs/ --prefix --keys-only
expect_status 1
expect_err "permission denied"
ectl "node:$EPH4" "$PW" get /rigdeck/accounts/alice
expect_status 1
expect_err "permission denied"
ectl "node:$EPH4" "$PW" put "/rigdeck/nodes/$EPH4" '{}'
expect_status 1
expect_err "permission denied"
kill_daemon "$PID_ctl" TERM
as --as alice --output json --now "$(at 200)" -c "cloud sync"
expect_json released.0.node "$EPH4"
wait_until 30 boot_stopped "$INST4"
ectl "node:$EPH4" "$PW" get "/rigdeck/nodes/$EPH4"
[ "$RC" != 0 ] && pass || fail "the released node's etcd user still logs in"
as --output json -c "store dump"
expect_no_out "credentials/node:$EPH4"

finish
