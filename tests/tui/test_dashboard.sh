#!/bin/sh
# test_dashboard.sh - the Dashboard (0) and Alerts (!) panes (issue 16): the
# fleet totals, the selected node's stats with a real `rigdeck agent`
# sampling them (GPUs from tests/agent/fake-nvidia-smi), Down and ] to pick
# the node and the GPU, 80x24; then a node that goes offline fires
# node-offline: the header counts it, the Dashboard lists it, the Alerts
# pane shows it, A acknowledges it as the acting account, and a read-only
# console refuses A; the roll-up below (u: per region or per account).  Every wait polls with a deadline; every process
# started here is ended by its pid.
. tests/tui/lib.sh
unset RIGDECK_NOW   # the agent samples on the system clock
INV=tests/inventories
PIDS=""
cleanup () {
    T kill-server 2>/dev/null
    for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT

if ! rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
        -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
        -c "node add dc n2 --minion m-2 --inventory $INV/a100x4.yaml" -c "node maintenance n2 off" \
        -c "node add dc n3 --minion m-3 --inventory $INV/a100x4.yaml" \
        >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the test fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi
mkdir -p "$TMP/work-n1" "$TMP/work-n2"
RIGDECK_NVIDIA_SMI=tests/agent/fake-nvidia-smi "$BIN" agent --store "$STORE" --node n1 \
    --inventory $INV/a100x4.yaml --work-dir "$TMP/work-n1" --heartbeat 1s --sample 1s --runtime process 2>"$TMP/agent-n1.log" &
PIDS="$PIDS $!"

start_shell 120 40

case_ "0 opens the Dashboard: fleet totals and the first node"
start_console
expect_screen 'n1 ' 15
keys 0
expect_screen 'Dashboard · node n1'
expect_screen 'Fleet  GPUs 0/12 allocated'
expect_screen '^ node n1  active  last hour  *now  *min  *max *$'
expect_screen '^ GPU 0 of 4  (\[ \] another) *now'
expect_screen 'Alerts  none firing'
expect_screen 'alerts: 0'

case_ "the agent's samples show as sparklines with their unit"
# The agent writes its history after its first sample, then once a minute.
expect_screen '^ cpu_util  *[▁▂▃▄▅▆▇█][▁▂▃▄▅▆▇█ ]* *[0-9]*% ' 90
expect_screen '^ gpu_temp_c  *[▁▂▃▄▅▆▇█][▁▂▃▄▅▆▇█ ]* *[0-9]* C '
expect_screen '^ mem_used_gb .* GB '
# the fleet's mean use follows the first frame (it reads every node's latest reading)
expect_screen 'Fleet  GPUs .* GPU use [0-9]*%  CPU use [0-9]*%' 30

case_ "Down picks the next node of the Nodes pane, ] the next GPU"
keys Down
expect_screen 'Dashboard · node n2'
expect_screen '^ node n2  active'
keys ']'
expect_screen '^ GPU 1 of 4'
keys '['
keys '['
expect_screen '^ GPU 3 of 4'
keys Up
expect_screen 'Dashboard · node n1'

case_ "at 80x24 every stat of the node and of its GPU still shows"
T resize-window -t rd -x 80 -y 24
expect_screen '^ net_tx_bps '
expect_screen '^ gpu_ecc_errors '
expect_screen '0 Dash ! Alrt'
T resize-window -t rd -x 120 -y 40
expect_screen '0 Dashboard  ! Alerts'

case_ "below, the fleet's use per region; u switches to per account (metrics fleet --by)"
expect_screen '^ Use by region  (u: by account)' 30
expect_screen '^   REGION  *NODES  *GPUS ALLOC  *GPU USE  *CPU CORES  *MEMORY  *DISK'
expect_screen '^   dc  *3  *0/12 .*/192 .*/1536 GB .*/6000 GB'
keys u
expect_screen '^ Use by account  (u: by region)'
expect_screen '^   (unallocated)  *3  *0  '
expect_screen '^   (total)  *3  *0  '
keys u
expect_screen '^ Use by region'

case_ "a node goes offline: node-offline fires"
"$BIN" agent --store "$STORE" --once --node n2 --inventory $INV/a100x4.yaml --work-dir "$TMP/work-n2" \
    --heartbeat 1s --runtime process 2>"$TMP/agent-once.log"
end=$(($(date +%s) + 30))
while [ "$(node_state n2)" != offline ] && [ "$(date +%s)" -le "$end" ]; do
    rd -c "agent check --node-timeout 1s" >/dev/null 2>&1
    sleep 0.2
done
expect_state n2 offline
if ! rd -c "alert eval" >"$TMP/eval.log" 2>&1; then
    keys q
    skip "'alert eval' failed here ($(tail -n 1 "$TMP/eval.log")): the alert cases need it"
fi
expect_screen 'alerts: 1' 15
expect_screen 'Alerts  1 firing'
expect_screen '#[^ ]* critical node-offline n2 .*since'

case_ "the Alerts pane lists it; A acknowledges it as the acting account"
keys '!'
expect_screen 'Alerts: \[All\] Firing'
expect_screen 'node-offline .*critical .*firing .*n2'
expect_screen '1 firing (1 not acknowledged)'
keys A
expect_screen 'acknowledged alert .* as default'
expect_screen 'node-offline .*critical .*firing .*n2 .* default *$'
got=$(rd --output json -c "alert list" | python3 -c "import json,sys; print(json.load(sys.stdin)['items'][0]['acked_by'])")
if [ "$got" = default ]; then pass; else fail "alert list says acked_by '$got'"; fi
keys v
expect_screen 'Alerts: All \[Firing\]'

case_ "quit"
keys q
expect_screen 'rigdeck-exit=0' 10

case_ "a read-only console refuses A"
start_console --read-only
expect_screen 'n1 ' 15
keys '!'
expect_screen 'node-offline'
keys A
expect_screen 'read-only session (--read-only): A (ack) is disabled'
keys q
expect_screen 'rigdeck-exit=0' 10

summary
