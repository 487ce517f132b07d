#!/bin/sh
# A worker's limits with real agents (spec/execution.md §4, issue 31 items
# 5 and 6): the process runtime pins a worker to its share of the node's
# vCPUs, on CPUs no other running worker holds, and a worker holding a
# fraction of a GPU gets the MPS variables (both seen from inside, in `job
# logs`); a worker whose work directory grows past its disk_size is stopped
# and fails with reason disk_exceeded, billed to its stop.  With podman
# (skipped where it cannot run): a container's --cpus/--memory seen in its
# cgroup files, and the CDI check of an agent with GPUs (fake nvidia-smi)
# against a fixture CDI directory: node show's gpu_cdi problem, gone once
# the spec names every GPU.
. tests/batch/lib.sh
. tests/batch/daemons.sh

# One RTX 3090 (24 GB) and 2 cores, i.e. 4 vCPUs: a quarter of the GPU is
# 1 vCPU, 12 GiB, MPS 25% and 6144 MiB; the whole GPU is 4 vCPUs.
cat >"$TMP/one3090.yaml" <<EOF
gpus:
  - {model: rtx3090, count: 1, memory_gb: 24, pcie_gen: 3, pcie_lanes: 8}
cpu_cores: 2
memory_gb: 64
nvme: [{size_gb: 500}, {size_gb: 500}]
sata: [{size_gb: 2000, kind: hdd}, {size_gb: 2000, kind: hdd}, {size_gb: 2000, kind: hdd}]
tpm: "2.0"
network_gbps: 10
EOF
# gpu_job NAME GPUS DISK CMD: a one-worker job on the RTX 3090
gpu_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [rtx3090], gpu_count: $2, max_price: 3, disk_size: $3}
workers: {count: 1, commands: [": rdtest-worker-$$; $4"]}
environment: {python: "3.9", framework: pytorch}
EOF
}
logs_have () { $WRAP "$BIN" --batch --store "$STORE" -c "job logs $1" 2>/dev/null | grep -q -- "$2"; }
allowed () { $WRAP "$BIN" --batch --store "$STORE" -c "job logs $1" 2>/dev/null | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p'; }

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set rtx3090 1" -c "price set cpu 0.2" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $TMP/one3090.yaml" -c "node maintenance n1 off" \
   -c "node set n1 --gpu-sharing on"
expect_status 0

case_ "an agent on the process runtime; a GB is 1 KiB for its disk checks (test hook)"
start_serve s1 --sched-every 1s
export RIGDECK_TEST_DISK_GB_BYTES=1024
start_agent n1 --inventory "$TMP/one3090.yaml" --sample 1s
unset RIGDECK_TEST_DISK_GB_BYTES
wait_json 60 "node show n1" agent.state online

case_ "a quarter GPU: pinned to one CPU, with the MPS variables of its share"
HERE=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
FIRST=$(echo "$HERE" | sed 's/[-,].*//')
gpu_job qa 0.25 10 "grep Cpus_allowed_list /proc/self/status; env | grep ^CUDA_MPS | sort; while [ ! -e $TMP/go ]; do sleep 0.2; done"
JA=$(submit qa)
wait_until 60 logs_have "$JA" CUDA_MPS_PINNED
rd -c "job logs $JA"
expect_out "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25"
expect_out "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=6144M"
A=$(allowed "$JA")
[ "$A" = "$FIRST" ] && pass || fail "the first quarter is pinned to '$A', not CPU $FIRST (this shell may use $HERE)"
grep -q "$JA/0: 1 vCPUs pinned to CPUs $FIRST, 12 GiB memory, MPS 25" "$TMP/agent-n1.log" && pass ||
    fail "agent log lacks the limits line"

case_ "a second quarter while the first runs: pinned to another CPU"
gpu_job qb 0.25 10 "grep Cpus_allowed_list /proc/self/status; while [ ! -e $TMP/go ]; do sleep 0.2; done"
JB=$(submit qb)
wait_until 60 logs_have "$JB" Cpus_allowed_list
B=$(allowed "$JB")
case "$HERE" in
*[-,]*) [ -n "$B" ] && [ "$B" != "$A" ] && pass || fail "both quarters pinned to '$A' / '$B'" ;;
*) [ "$B" = "$A" ] && pass || fail "one CPU here ($HERE): the second shares it, got '$B'" ;;
esac
touch "$TMP/go"
wait_json 60 "job show $JA" state finished
wait_json 60 "job show $JB" state finished

case_ "a whole GPU asks 4 vCPUs: on a smaller machine it is pinned to all it has, and the log says so"
gpu_job whole 1 10 "grep Cpus_allowed_list /proc/self/status"
JW=$(submit whole)
wait_json 60 "job show $JW" state finished
rd -c "job logs $JW"
expect_out "Cpus_allowed_list:	$HERE\$"
if [ "$(nproc)" -lt 4 ]; then
    grep -q "$JW/0: asks 4 vCPUs but this machine lets the agent use" "$TMP/agent-n1.log" && pass ||
        fail "agent log lacks the pinned-to-all line"
fi

case_ "a worker writing past its disk_size is stopped: failed, disk_exceeded, billed to its stop"
gpu_job filler 0.25 10 "dd if=/dev/zero of=big bs=1024 count=200 2>/dev/null; echo wrote; sleep 120"
JD=$(submit filler)
wait_json 90 "job show $JD" state failed
rd --output json -c "job show $JD"
expect_json workers.0.reason disk_exceeded
expect_json workers.0.signal 15
ended=$(jget workers.0.ended_at)
[ -n "$ended" ] && [ "$ended" != null ] && [ "$(jget workers.0.billed_until)" = "$ended" ] && pass ||
    fail "billed until $(jget workers.0.billed_until), ended $ended"
grep -q "$JD/0: its work directory uses more than its disk_size (10240 bytes): stopping it" "$TMP/agent-n1.log" &&
    pass || fail "agent log lacks the disk line"
rd -c "job logs $JD"
expect_out wrote

# ---- podman: limits in a real container, and the CDI check --------------
. tests/batch/podman.sh
IMG=docker.io/rdtest/limits-$$:1   # Docker Hub by name (the registry rule), imported here: never pulled
if ! podman_conf || ! podman_rootfs "$TMP/pm/rootfs" sh cat || ! podman_image "$TMP/pm/rootfs" "$IMG"; then
    echo "note: $PODMAN_WHY: container limits and the CDI check not run"
    finish
    exit
fi

case_ "podman: a CPU job's container gets --cpus 4 (at most the machine's CPUs) and --memory 16g (4 GiB per vCPU)"
CPUS=$(nproc); [ "$CPUS" -gt 4 ] && CPUS=4
rd -c "node add dc n3 --minion m-3 --inventory $INV/cpu.yaml" -c "node maintenance n3 off" \
   -c "node maintenance n1 on"
expect_status 0
start_agent n3 --inventory "$INV/cpu.yaml" --runtime podman
wait_json 60 "node show n3" agent.state online
cat >"$TMP/box.yaml" <<EOF
name: box
type: training
resources: {gpu_types: [cpu], cpu_count: 4, disk_size: 10}
workers: {count: 1, commands: [": rdtest-worker-$$; cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu.max /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max 2>/dev/null; true"]}
environment: {image: "$IMG"}
EOF
JC=$(submit box)
wait_json 120 "job show $JC" state finished
rd -c "job logs $JC"
# cgroup v1: the quota per 100 ms period; v2: "quota period"
if grep -q "^${CPUS}00000" "$OUT"; then pass; else fail "no --cpus $CPUS in the container's cgroup: $(cat "$OUT")"; fi
expect_out '^17179869184$'

case_ "podman with GPUs: a CDI spec that does not name every GPU is node show's gpu_cdi problem"
mkdir -p "$TMP/cdi-etc" "$TMP/cdi-run"
cp tests/agent/cdi/nvidia-ctk-type-index.json "$TMP/cdi-etc/"
cp tests/agent/nvidia-smi/a100-memory-na.txt "$TMP/smi-n2.txt"
rd -c "node add dc n2 --minion m-2"
export RIGDECK_NVIDIA_SMI=$PWD/tests/agent/fake-nvidia-smi FAKE_NVIDIA_SMI_FIXTURE="$TMP/smi-n2.txt"
export RIGDECK_CDI_DIRS="$TMP/cdi-etc:$TMP/cdi-run"
start_agent n2 --runtime podman --sample 1s
unset RIGDECK_NVIDIA_SMI FAKE_NVIDIA_SMI_FIXTURE RIGDECK_CDI_DIRS
wait_json 60 "node show n2" inventory_problems.0.problem gpu_cdi
rd --output json -c "node show n2"
detail=$(jget inventory_problems.0.detail)
case "$detail" in
*"no CDI device nvidia.com/gpu=0, nvidia.com/gpu=1 in the CDI specs of $TMP/cdi-etc:$TMP/cdi-run"*"sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"*) pass ;;
*) fail "gpu_cdi detail: $detail" ;;
esac
grep -q "no CDI device nvidia.com/gpu=0" "$TMP/agent-n2.log" && pass || fail "agent log lacks the CDI line"

case_ "a spec naming only GPU 0: GPU 1 is still missing"
cp tests/agent/cdi/nvidia-ctk-index.yaml "$TMP/cdi-run/nvidia.yaml"
wait_until 60 sh -c "$WRAP '$BIN' --batch --store '$STORE' --output json -c 'node show n2' | python3 tests/jget.py inventory_problems.0.detail | grep -q 'no CDI device nvidia.com/gpu=1 in'"

case_ "the spec names both GPUs: the problem is gone without a restart"
sed 's/^    - name: all$/    - name: "1"\n      containerEdits: {deviceNodes: [{path: \/dev\/nvidia1}]}\n    - name: all/' \
    tests/agent/cdi/nvidia-ctk-index.yaml >"$TMP/cdi-run/nvidia.yaml.new" && mv "$TMP/cdi-run/nvidia.yaml.new" "$TMP/cdi-run/nvidia.yaml"
wait_json 60 "node show n2" inventory_problems "[]"
kill -0 "$(agent_pid n2)" && pass || fail "the agent stopped"

podman rmi -f "$IMG" >/dev/null 2>&1
finish
