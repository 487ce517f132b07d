#!/bin/sh
# test_small_terminal.sh - below 80x24 the console shows only "needs at
# least 80x24", so it must not act on keys the operator cannot see the
# effect of: `m` then `y` used to toggle maintenance of the selected node
# behind that message.  Only resize, `?` and `q` work there.  Each key's
# effect is judged after the window grows back: keys are handled in order,
# so once the full screen is drawn again every earlier key has been handled.
. tests/tui/lib.sh

INV=tests/inventories
if ! rd -c "provider enable physical" \
        -c "region create dc-east --provider physical --storage local --public" \
        -c "node add dc-east gpu-01 --agent none --minion m-01 --inventory $INV/a100x4.yaml" \
        -c "node maintenance gpu-01 off" >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the test fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi

# show_state NAME: the node's state as `node show` reports it, or "missing".
show_state () {
    rd --output json -c "node show $1" 2>/dev/null |
        python3 -c "import json,sys; print(json.load(sys.stdin).get('state', 'missing'))" 2>/dev/null ||
        echo missing
}
expect_show_state () {
    got=$(show_state "$1")
    if [ "$got" = "$2" ]; then pass; else fail "batch 'node show $1' says '$got', expected '$2'"; fi
}
shrink () {
    T resize-window -t rd -x 70 -y 20
    expect_screen 'needs at least 80x24' 30
}
# grow [PATTERN]: back to 120x40, waiting for the full screen (by default
# the Nodes summary line).
grow () {
    T resize-window -t rd -x 120 -y 40
    expect_screen "${1:-Nodes · 1 of 1}" 30
}

start_shell 120 40
start_console
expect_screen 'gpu-01 .*active' 30
expect_show_state gpu-01 active

case_ "m then y in a too-small terminal changes nothing"
shrink
keys m
keys y
grow
expect_show_state gpu-01 active
shot
if grep -q 'Toggle maintenance\|done: ' "$SCREEN"; then fail "a key acted behind the too-small message"; else pass; fi

case_ "forms, prompts, removal and sync keys are ignored there too"
shrink
keys d
keys y
keys a
keys :
keys S
grow
expect_show_state gpu-01 active
shot
if grep -q 'Remove node\|Add a node\|^:\|cloud sync\|done: ' "$SCREEN"; then
    fail "a key acted behind the too-small message"
else
    pass
fi

case_ "? still opens the help"
shrink
keys '?'
grow 'every key binding'
keys Escape
expect_not_screen 'every key binding' 30

case_ "q still quits in a too-small terminal"
shrink
keys q
expect_screen 'rigdeck-exit=0' 30
expect_show_state gpu-01 active

summary
[ "$FAILED" = 0 ]
