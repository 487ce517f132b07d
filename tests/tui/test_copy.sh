#!/bin/sh
# test_copy.sh - y copies into the operator's clipboard through the terminal
# (OSC 52, issue 33): on the demo fleet, a node's name and a job's id from
# the tables, a job's details (its connect URL where `job connect` gives one,
# else its id), the Dashboard's node, and in a --read-only session too.  Each
# copy is checked three ways: the status line names it, the test record
# (RIGDECK_CLIPBOARD_FILE) got it, and tmux itself, with `set-clipboard on`,
# took the escape from the console and made a buffer of it (`show-buffer`):
# the real terminal's check; one buffer per copy, as the copy tmux's
# passthrough would carry is dropped (allow-passthrough is off).  The escape
# must leave the screen untouched.
. tests/tui/lib.sh

CLIP="$TMP/clip"
INV=tests/inventories
if ! { rd -f scripts/demo-fleet.txt && rd -c "price set a100 2.5" -c "account deposit default 1000"; } \
        >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the demo fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi
cat >"$TMP/train.yaml" <<EOF
name: copytrain
type: training
resources: {gpu_types: [rtx2080ti], gpu_count: 1, max_price: 3, disk_size: 50}
workers: {count: 1, commands: ["true"]}
environment: {python: "3.9", framework: pytorch}
EOF
cat >"$TMP/nb.yaml" <<EOF
name: copynotebook
type: notebook
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
environment: {python: "3.9", framework: pytorch}
EOF
TRAIN=$(rd --output json -c "job submit $TMP/train.yaml" | python3 tests/jget.py id)
NB=$(rd --output json -c "job submit $TMP/nb.yaml" | python3 tests/jget.py id)
# the demo's nodes have no agent: a placed worker runs at once
rd -c "sched run" >"$TMP/sched.log" 2>&1
if [ -z "$TRAIN" ] || [ -z "$NB" ]; then
    echo "  FAIL could not submit the jobs" >&2
    FAILED=1
    summary
    exit 1
fi

start_shell 120 40
# tmux takes an application's OSC 52 only with set-clipboard on (its
# default, external, ignores it): then each copy becomes a tmux buffer.
T set -s set-clipboard on

# last_copy: the last line the console recorded; copies: how many lines.
last_copy () { tail -n 1 "$CLIP" 2>/dev/null; }
copies () { if [ -f "$CLIP" ]; then wc -l <"$CLIP" | tr -d ' '; else echo 0; fi; }
COPIES=0
# expect_copied TEXT: one more copy, of TEXT: the record ends with it, and
# tmux made one more buffer, holding it.
expect_copied () {
    COPIES=$((COPIES + 1))
    tries=80
    while [ "$tries" -gt 0 ] && [ "$(copies)" != "$COPIES" ]; do sleep 0.1; tries=$((tries - 1)); done
    if [ "$(copies)" = "$COPIES" ] && [ "$(last_copy)" = "$1" ]; then pass; else
        fail "RIGDECK_CLIPBOARD_FILE has $(copies) copies ending with '$(last_copy)', expected $COPIES ending with '$1'"; fi
    tries=80
    while [ "$tries" -gt 0 ] && [ "$(T list-buffers 2>/dev/null | wc -l)" != "$COPIES" ]; do sleep 0.1; tries=$((tries - 1)); done
    got=$(T show-buffer 2>/dev/null)
    n=$(T list-buffers 2>/dev/null | wc -l)
    if [ "$got" = "$1" ] && [ "$n" = "$COPIES" ]; then pass; else
        fail "tmux has $n buffers, the newest '$got'; expected $COPIES, the newest '$1' (OSC 52 did not reach tmux, or twice)"; fi
}
# The escape is no text: nothing of it may show on the screen.
expect_clean_screen () {
    shot
    if grep -q '52;c\|Ptmux' "$SCREEN"; then fail "the escape shows on the screen"; else pass; fi
}
start_copy_console () {
    type_ "clear; RIGDECK_CLIPBOARD_FILE=$CLIP $BIN --store $STORE $*; echo rigdeck-exit=\$?"
    keys Enter
}

case_ "Nodes: y copies the selected node's name"
start_copy_console
expect_screen 'gpu-01' 15
keys g y
expect_screen 'copied node gpu-01'
expect_copied gpu-01
expect_clean_screen
keys j y
expect_screen 'copied node gpu-02'
expect_copied gpu-02
expect_clean_screen

case_ "the help lists y"
keys '?'
expect_screen "y  *copy the selected row's id or name"
keys q

case_ "Jobs: y copies the selected job's id"
keys 6
expect_screen "$TRAIN" 15
keys /
type_ copytrain
keys Enter
expect_screen 'Jobs\] .* · 1 of 2'
expect_screen 'y copy'
keys y
expect_screen "copied job id $TRAIN"
expect_copied "$TRAIN"
expect_clean_screen

case_ "a training job's details: y copies its id, the footer offers it"
keys Enter
expect_screen "Jobs $TRAIN"
expect_screen 'y copy'
keys y
expect_screen "copied job id $TRAIN"
expect_copied "$TRAIN"
keys Escape

case_ "a running notebook's details: y copies its URL from job connect, else its id and why not"
keys /
keys C-u
type_ copynotebook
keys Enter
expect_screen 'Jobs\] .* · 1 of 2'
expect_screen "$NB .*running"
keys Enter
expect_screen "Jobs $NB"
keys y
URL=$(rd --output json -c "job connect $NB" 2>/dev/null | python3 tests/jget.py url 2>/dev/null)
if [ -n "$URL" ]; then
    expect_screen "copied $NB's URL"
    expect_copied "$URL"
else
    # a build without `job connect`, or one that refuses this worker: the id
    expect_screen "copied job id $NB (no URL: "
    expect_copied "$NB"
fi
expect_clean_screen
keys Escape

case_ "a ':' result has no row: y says so and copies nothing"
keys :
type_ "node list"
keys Enter
expect_screen ':node list'
keys y
expect_screen 'y: nothing to copy in this view'
keys Escape

case_ "Dashboard: y copies the node it shows"
keys 3 g j j
keys 0
expect_screen 'lab-01' 15
keys y
expect_screen 'copied node lab-01'
expect_copied lab-01
keys q
expect_screen 'rigdeck-exit=0'

case_ "--read-only: copying only reads, y works"
start_copy_console --read-only
expect_screen 'READ-ONLY' 15
keys 3 G y
expect_screen 'copied node ws-01'
expect_copied ws-01
keys q
expect_screen 'rigdeck-exit=0'

summary
[ "$FAILED" = 0 ]
