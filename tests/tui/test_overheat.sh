#!/bin/sh
# test_overheat.sh - issue 16's "done when", end to end with real parts: a
# real controller (rigdeck serve), a real agent whose GPU readings come from
# a stand-in nvidia-smi reading a file this test rewrites, a real HTTP
# receiver for the webhooks, and the console in a real terminal.  A GPU that
# overheats is taken out of placement, its alerts fire, the webhook receives
# them, the console shows them (Alerts pane, header count); when the reading
# falls the temperature alert resolves, and once an operator clears the GPU
# the health alert resolves too and the GPU takes work again.  Every wait
# polls with a deadline; every process started here is ended by its pid.
. tests/tui/lib.sh
INV=tests/inventories
PIDS=""
cleanup () {
    T kill-server 2>/dev/null
    for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
    for p in $(pgrep -f "rdtest-overheat-$$"); do kill -s KILL -- "-$p" 2>/dev/null; kill -s KILL "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT

CSV=$TMP/gpus.csv
gpus () {   # gpus TEMP0 TEMP1: two A100s at these temperatures
    {
        echo "0, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 20, 1024, $1, 95.50, 0"
        echo "1, NVIDIA A100-SXM4-40GB, 40960, 4, 16, 0, 4, $2, 61.00, 0"
    } >"$CSV.new" && mv "$CSV.new" "$CSV"
}
gpus 41 37

# posted RULE STATE GPU: the receiver got that change.
posted () {
    python3 - "$TMP/hook" "$@" <<'PY'
import glob, json, sys
d, rule, state, gpu = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for f in sorted(glob.glob(d + "/*.json")):
    p = json.load(open(f))
    if p["rule"] == rule and p["state"] == state and p["node"] == "n1" and p["gpu"] == gpu:
        sys.exit(0)
sys.exit(1)
PY
}
# wait_until SECONDS CMD...: CMD succeeds within the deadline.
wait_until () {
    end=$(($(date +%s) + $1)); shift
    while [ "$(date +%s)" -le "$end" ]; do
        if "$@" >/dev/null 2>&1; then pass; return 0; fi
        sleep 0.2
    done
    fail "not within the deadline: $*"
}
job_state () { [ "$(rd --output json -c "job show $1" | python3 tests/jget.py state)" = "$2" ]; }

mkdir -p "$TMP/hook" "$TMP/work"
python3 tests/batch/webhook_receiver.py "$TMP/hook" ok &
PIDS="$PIDS $!"
tries=100
while [ ! -s "$TMP/hook/port" ] && [ "$tries" -gt 0 ]; do sleep 0.1; tries=$((tries - 1)); done
URL="http://127.0.0.1:$(cat "$TMP/hook/port")/hook"

if ! rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
        -c "price set a100 2.78" -c "account deposit default 1000" \
        -c "node add dc n1 --minion m-1 --inventory $INV/a100x2.yaml" -c "node maintenance n1 off" \
        -c "alert rule add hot --metric gpu_temp_c --above 80 --node n1 --severity critical --webhook $URL" \
        -c "alert rule remove gpu-unhealthy" \
        -c "alert rule add gpu-unhealthy --metric gpu_unhealthy --above 0 --webhook $URL" \
        >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the test fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi
"$BIN" serve --store "$STORE" --node-timeout 10s --sched-every 1s 2>"$TMP/serve.log" &
PIDS="$PIDS $!"
RIGDECK_NVIDIA_SMI=tests/agent/fake-nvidia-smi FAKE_NVIDIA_SMI_CSV=$CSV "$BIN" agent --store "$STORE" --node n1 \
    --inventory $INV/a100x2.yaml --work-dir "$TMP/work" --heartbeat 1s --sample 1s --gpu-temp-max 85 --runtime process \
    2>"$TMP/agent.log" &
PIDS="$PIDS $!"

start_shell 120 40

case_ "the console opens on a quiet fleet"
start_console
expect_screen 'n1 ' 15
keys '!'
expect_screen 'alerts: 0' 30

case_ "GPU 1 overheats: out of placement, both alerts fire, the webhook receives them, the console shows them"
gpus 41 90
wait_until 60 posted hot firing 1
wait_until 60 posted gpu-unhealthy firing 1
expect_screen 'alerts: 2' 30
expect_screen 'hot .*critical .*firing .*n1' 10
expect_screen 'gpu-unhealthy .*warning .*firing .*n1' 10
cat >"$TMP/two.yaml" <<EOF
name: two
type: training
resources: {gpu_types: [a100], gpu_count: 2, max_price: 3, disk_size: 50}
workers: {count: 1, commands: [": rdtest-overheat-$$; true"]}
environment: {python: "3.9", framework: pytorch}
EOF
J=$(rd --output json -c "job submit $TMP/two.yaml" | python3 tests/jget.py id)
wait_until 30 job_state "$J" waiting_gpus
rd --output json -c "job why $J" >"$TMP/why" 2>&1
rd -c "sched run" >/dev/null 2>&1
job_state "$J" waiting_gpus && pass || fail "a 2-GPU job was placed on a node with one healthy GPU"

case_ "the reading falls: the temperature alert resolves, the health alert stays"
gpus 41 50
wait_until 60 posted hot resolved 1
expect_screen 'alerts: 1' 30
posted gpu-unhealthy resolved 1 && fail "gpu-unhealthy resolved before anyone cleared the GPU" || pass
job_state "$J" waiting_gpus && pass || fail "the job was placed before the GPU was cleared"

case_ "an operator clears the GPU: the health alert resolves, the GPU takes work again"
rd -c "node health clear n1 1" >/dev/null 2>&1 && pass || fail "node health clear refused"
wait_until 60 posted gpu-unhealthy resolved 1
expect_screen 'alerts: 0' 30
wait_until 60 job_state "$J" finished

case_ "quit"
keys q
expect_screen 'rigdeck-exit=0' 10

summary
