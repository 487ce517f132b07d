#!/bin/sh
# Real containers under real podman (issue 31, spec/execution.md §4).  No
# registry is reachable: the image is a static busybox root file system
# imported offline under a registry-qualified local name.  Checks: a
# runtime runs a trivial container before it is chosen (a named podman that
# cannot stops the agent with podman's own words; auto falls back to
# process and says why); a job with environment.image runs in that image
# with its variables, exit code, logs and exact billing, and one naming only
# its framework, version and python runs in the matching environment's
# image (an operator's `environment add` on the offline image); a job naming an
# image that is nowhere fails image_pull_failed with podman's message, no
# started_at and no charge; three such failures in a row put the node in
# maintenance (reason runtime) and raise the node-runtime alert; a worker
# that starts resets the count.
#
# Skips (passed-skip) where podman is absent or cannot run a container even
# with the containers.conf this test writes (default_ulimits = [], runc,
# cgroupfs: what hosts like this sandbox need, docs/operations.md).
. tests/batch/lib.sh
. tests/batch/daemons.sh

. tests/batch/podman.sh
podman_conf || skip "$PODMAN_WHY"
GOOD=$CONTAINERS_CONF
# an OCI runtime that exists nowhere: podman answers `info` but cannot run
printf '[engine]\nruntime = "/nonexistent/rigdeck-oci-%s"\n' $$ >"$TMP/pm/broken.conf"
BROKEN=$TMP/pm/broken.conf
podman_rootfs "$TMP/rootfs" sh echo cat sleep ls env test || skip "$PODMAN_WHY"
# environment.image follows the registry rule: a Docker Hub name, held
# locally, so it runs without a pull
IMG=docker.io/rdtest/busybox:1
podman_image "$TMP/rootfs" "$IMG" || skip "$PODMAN_WHY"
unset CONTAINERS_CONF   # each case below names the containers.conf it runs with
MISSING=docker.io/rdtest/nowhere-$$:1

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set cpu 0.2" -c "account deposit default 1000" \
   -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "node add dc n1 --minion m-1 --inventory $INV/cpu.yaml" -c "node maintenance n1 off"
expect_status 0

case_ "a named podman that cannot run a container stops the agent with podman's own words"
mkdir -p "$TMP/work-once"
CONTAINERS_CONF=$BROKEN $WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$TMP/work-once" --once \
    --runtime podman --inventory $INV/cpu.yaml >"$OUT" 2>"$ERR"
RC=$?
expect_status 1
expect_err "rigdeck agent: --runtime podman cannot run a container here: Error: .*rigdeck-oci"
rd --output json -c "node show n1"
expect_json agent.state none   # it never registered
# where podman's own configuration cannot run containers (this sandbox: "crun:
# cgroups in hybrid mode not supported"), the agent says that, too
if ! env -u CONTAINERS_CONF podman run --rm --rootfs "$TMP/rootfs" /bin/sh -c true >/dev/null 2>&1; then
    env -u CONTAINERS_CONF $WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$TMP/work-once" --once \
        --runtime podman --inventory $INV/cpu.yaml >"$OUT" 2>"$ERR"
    RC=$?
    expect_status 1
    expect_err "cannot run a container here: Error: "
fi

case_ "auto with a podman that cannot run falls back to process and says why"
CONTAINERS_CONF=$BROKEN $WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$TMP/work-once" --once \
    --runtime auto --inventory $INV/cpu.yaml --heartbeat 1s >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
expect_err "runtime: runtime podman skipped: Error: .*rigdeck-oci"
expect_err "(runtime process,"
rd --output json -c "agent list"
expect_json items.0.runtime process

case_ "auto with a podman that runs takes podman"
CONTAINERS_CONF=$GOOD $WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$TMP/work-once" --once \
    --runtime auto --inventory $INV/cpu.yaml --heartbeat 1s >"$OUT" 2>"$ERR"
RC=$?
expect_status 0
expect_err "(runtime podman,"
rd --output json -c "agent list"
expect_json items.0.runtime podman

# cpu_job NAME IMAGE COMMAND: a CPU job (4 vCPUs) running COMMAND in IMAGE.
cpu_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [cpu], cpu_count: 4, disk_size: 20}
workers: {count: 1, commands: ['$3']}
environment:
  image: "$2"
  env: {RDTEST_TAG: tagged-$1}
EOF
    rd --as alice --output json -c "job submit $TMP/$1.yaml"
    jget id
}

# billed JOB: what alice paid for the run of JOB (its rental, host's and
# platform's parts), in micro-credits.
billed () {
    rd --output json -c "ledger entries --account alice --kind gpu_rental"
    jget items | python3 -c "import json,sys; print(sum(abs(t['amount_ucr']) for t in json.load(sys.stdin) if '$1' in t['id']))"
}

case_ "the controller and a podman agent start"
export CONTAINERS_CONF=$GOOD
start_serve s1 --node-timeout 10s --sched-every 1s
$WRAP "$BIN" agent --store "$STORE" --node n1 --work-dir "$TMP/work-n1" --heartbeat 1s --runtime podman \
    --inventory $INV/cpu.yaml 2>>"$TMP/agent-n1.log" &
PID_agent_n1=$!
DAEMONS="$DAEMONS $!"
wait_json 60 "node show n1" agent.state online
rd --output json -c "agent list"
expect_json items.0.runtime podman

case_ "a job with environment.image runs in that image: its variables, exit code, logs, exact billing"
J1=$(cpu_job real "$IMG" 'echo "in $RIGDECK_JOB_ID/$RIGDECK_WORKER_INDEX $RDTEST_TAG"; test -x /bin/busybox && echo in-busybox; test -e /etc/debian_version || echo not-the-host; sleep 2; exit 3')
wait_json 120 "job show $J1" state failed
rd --output json -c "job show $J1"
expect_json workers.0.exit_code 3
expect_json workers.0.reason ""
started=$(jget workers.0.started_at)
ended=$(jget workers.0.ended_at)
price=$(jget workers.0.price_ucr)
[ -n "$started" ] && [ "$started" != null ] && pass || fail "no started_at"
rd -c "job logs $J1"
expect_out "in $J1/0 tagged-real"
expect_out "in-busybox"
expect_out "not-the-host"
secs=$(python3 -c "
from datetime import datetime
f='%Y-%m-%dT%H:%M:%SZ'
print(int((datetime.strptime('$ended',f)-datetime.strptime('$started',f)).total_seconds()))")
[ "$secs" -ge 2 ] && pass || fail "ran $secs s ($started .. $ended), want at least the 2 s it slept"
# one span under an hour: price x seconds / 3600, rounded half away from zero
want=$(python3 -c "print(($price * $secs * 2 + 3600) // 7200)")
got=$(billed "$J1")
[ "$got" = "$want" ] && pass || fail "billed $got ucr for $secs s at $price ucr/h, want $want"
rd -c "ledger verify"
expect_status 0

case_ "a job naming an image that is nowhere fails image_pull_failed: podman's message, no start, no charge"
J2=$(cpu_job missing "$MISSING" 'echo never')
wait_json 120 "job show $J2" state failed
rd --output json -c "job show $J2"
expect_json workers.0.reason image_pull_failed
expect_json workers.0.started_at null
msg=$(jget workers.0.message)
case "$msg" in Error:*) pass ;; *) fail "message '$msg' is not podman's Error line" ;; esac
case "$msg" in *nowhere-$$*) pass ;; *) fail "message '$msg' does not name the image" ;; esac
[ "$(billed "$J2")" = 0 ] && pass || fail "a job that never started was billed $(billed "$J2") ucr"
rd -c "job logs $J2"
expect_no_out "never"
rd --output json -c "node show n1"
expect_json state active
expect_json runtime_failures 1

case_ "a worker that starts resets the count"
J3=$(cpu_job ok "$IMG" 'echo fine')
wait_json 120 "job show $J3" state finished
rd --output json -c "node show n1"
expect_json runtime_failures 0

case_ "a job naming only its framework, version and python runs in the matching environment's image"
# An operator's environment on the offline image (job-spec.md's example
# names pytorch 1.13; this one is its own version, so it is the match).
rd -c "environment add rdtest-torch --image $IMG --framework pytorch --framework-version 9.9 --python 3.9"
expect_status 0
cat >"$TMP/envjob.yaml" <<EOF
name: envjob
type: training
resources: {gpu_types: [cpu], cpu_count: 4, disk_size: 20}
workers: {count: 1, commands: ['echo "in \$RIGDECK_JOB_ID"; test -x /bin/busybox && echo in-busybox; sleep 2; exit 0']}
environment: {framework: pytorch, framework_version: "9.9", python: "3.9"}
EOF
rd --as alice --output json -c "job submit $TMP/envjob.yaml"
expect_status 0
JE=$(jget id)
expect_json environment.base.name rdtest-torch
expect_json environment.base.image "$IMG"
wait_json 120 "job show $JE" state finished
rd -c "job logs $JE"
expect_out "in-busybox"
[ "$(billed "$JE")" -gt 0 ] && pass || fail "a job that ran was not billed"

case_ "three platform failures in a row put the node in maintenance (reason runtime) and raise node-runtime"
for k in 1 2 3; do
    J=$(cpu_job "missing$k" "$MISSING" 'echo never')
    wait_json 120 "job show $J" state failed
    rd --output json -c "job show $J"
    expect_json workers.0.reason image_pull_failed
done
rd --output json -c "node show n1"
expect_json state maintenance
expect_json maintenance_reason runtime
case "$(jget maintenance_detail)" in "3 workers in a row could not start: Error:"*) pass ;;
    *) fail "maintenance_detail: $(jget maintenance_detail)" ;; esac
rd --output json -c "alert eval"
rd --output json -c "alert list"
python3 -c "
import json,sys
items=json.load(open('$OUT'))['items']
sys.exit(0 if any(a['rule']=='node-runtime' and a.get('node')=='n1' for a in items) else 1)" && pass ||
    fail "no node-runtime alert for n1: $(cat "$OUT")"
rd -c "ledger verify"
expect_status 0

kill_daemon "$(agent_pid n1)" TERM
finish
