#!/bin/sh
# test_jump_mouse.sh - jumps and the mouse (issue 35 items 3 and 4) on the
# demo fleet with a placed job, a firing alert and edge devices: '>' from a
# job to its node (also from its details), '<' back to the same row, from a
# node to the Jobs listing it (and its filter undone by '<'), a node with no
# job (nothing moves), from an alert to its node, from a device to its
# region.  Then the mouse, as xterm's SGR reports (ESC [ < b ; x ; y M/m)
# typed into the pane: tmux hands them to the console like a terminal
# would, once the console asked for mouse events (checked through tmux's
# mouse flags, off with RIGDECK_NO_MOUSE): a click on a header sorts (again:
# the other way), on a row selects it, the wheel moves, a tab switches.
. tests/tui/lib.sh
unset RIGDECK_NOW   # the agent's heartbeat is on the system clock
INV=tests/inventories
if ! { rd -f scripts/demo-fleet.txt &&
       rd -c "price set a100 2.5" -c "account deposit default 1000" \
          -c "node add dc-east n-agent --minion m-agent --inventory $INV/a100x4.yaml" \
          -c "node maintenance n-agent off" -c "job submit tests/specs/sched/a100-1.yaml" -c "sched run"; } \
        >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the demo fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi
JOB=$(rd --output json -c "job list" | python3 -c "import json,sys; print(json.load(sys.stdin)['items'][0]['id'])")
NODE=$(rd --output json -c "job list" | python3 -c "import json,sys; print(json.load(sys.stdin)['items'][0]['node'])")
# n-agent reports once, then falls silent: node-offline fires for it
mkdir -p "$TMP/work"
"$BIN" agent --store "$STORE" --once --node n-agent --inventory $INV/a100x4.yaml --work-dir "$TMP/work" \
    --heartbeat 1s --runtime process >"$TMP/agent.log" 2>&1
end=$(($(date +%s) + 30))
while [ "$(node_state n-agent)" != offline ] && [ "$(date +%s)" -le "$end" ]; do
    rd -c "agent check --node-timeout 1s" >/dev/null 2>&1
    sleep 0.2
done
rd -c "alert eval" >"$TMP/eval.log" 2>&1

start_shell 120 40
# xterm's terminfo (kmous=\E[<): ncurses asks for SGR reports and reads them
type_ "clear; TERM=xterm-256color $BIN --store $STORE; echo rigdeck-exit=\$?"
keys Enter
expect_screen 'Nodes · 8 of 8' 15

case_ "a job jumps to its node; < returns to the job"
keys 6
expect_screen "$JOB .* $NODE"
keys '>'
expect_screen "^$JOB -> node $NODE (< goes back)"
expect_screen 'Nodes · 8 of 8'
keys Enter
expect_screen "Nodes $NODE  (Esc closes)"
keys Escape
keys '<'
expect_screen "back to Jobs $JOB"
expect_screen 'Jobs: \[Jobs\]'

case_ "from a job's details too"
keys Enter
expect_screen "Jobs $JOB  (Esc closes)"
keys '>'
expect_screen "^$JOB -> node $NODE"
expect_not_screen "Jobs $JOB  (Esc closes)"
keys BSpace
expect_screen "back to Jobs $JOB"

case_ "a node jumps to the Jobs listing it; < undoes the filter"
keys 3 g
keys '>'
expect_screen "node $NODE: 1 job on it (< goes back)"
expect_screen "Jobs: \[Jobs\] Projects Environments · 1 of 1 · filter \"$NODE\""
keys '<'
expect_screen "back to Nodes $NODE"
keys 6
expect_screen 'Jobs: \[Jobs\] Projects Environments · 1 of 1  '
expect_not_screen "filter \"$NODE\""

case_ "a node with no job: nothing moves"
keys 3 g Down
keys '>'
expect_screen 'no job in Jobs names node gpu-02: nothing to jump to'
expect_screen 'Nodes · 8 of 8'

case_ "an alert jumps to its node"
keys '!'
expect_screen 'node-offline .*n-agent' 15
keys g '>'
expect_screen '^alert-[0-9a-f]* -> node n-agent (< goes back)'
keys Enter
expect_screen 'Nodes n-agent  (Esc closes)'
keys Escape

case_ "a device jumps to its region"
keys 4
expect_screen 'cam-01 *lab'
keys g '>'
expect_screen 'device cam-01 -> region lab'
expect_screen 'Regions · 2 of 2'
keys Enter
expect_screen 'Regions lab  (Esc closes)'
keys Escape
keys '<'
expect_screen 'back to Devices cam-01'

# click Y X: a left press and its release at 1-based row Y, column X
click () { type_ "$(printf '\033[<0;%s;%sM\033[<0;%s;%sm' "$2" "$1" "$2" "$1")"; }
wheel () { type_ "$(printf '\033[<%s;10;10M' "$1")"; }   # 64 up, 65 down

case_ "the console asked for mouse reports"
flags=$(T display -p -t rd '#{mouse_any_flag}#{mouse_sgr_flag}')
if [ "$flags" = 11 ]; then pass; else fail "tmux's mouse flags are '$flags', expected 11"; fi

case_ "a click on a header sorts by it, again the other way"
keys 3
expect_screen 'Nodes · 8 of 8'
click 4 4
expect_screen 'sorted by NAME ascending'
expect_screen 'NAME▲'
click 4 4
expect_screen 'sorted by NAME descending'
expect_screen 'NAME▼'
click 4 4

case_ "a click on a row selects it, the wheel moves"
# name order: gpu-01 gpu-02 lab-01 lab-storage n-agent new-01 odd-01 ws-01;
# the third row under the header is screen row 7
click 7 10
keys Enter
expect_screen 'Nodes lab-01  (Esc closes)'
keys Escape
wheel 65
keys Enter
expect_screen 'Nodes new-01  (Esc closes)'
keys Escape
wheel 64
keys Enter
expect_screen 'Nodes lab-01  (Esc closes)'
keys Escape

case_ "a click on a tab switches pane"
# " 1 Providers  2 Regions  3 Nodes  4 Devices  5 Quotas  6 Jobs ": 6 at 57
click 2 58
expect_screen 'Jobs: \[Jobs\]'
click 2 3
expect_screen 'Providers'
keys q
expect_screen 'rigdeck-exit=0'

case_ "RIGDECK_NO_MOUSE=1: no mouse reports asked for"
type_ "clear; RIGDECK_NO_MOUSE=1 TERM=xterm-256color $BIN --store $STORE; echo rigdeck-exit=\$?"
keys Enter
expect_screen 'Nodes · 8 of 8' 15
flags=$(T display -p -t rd '#{mouse_any_flag}')
if [ "$flags" = 0 ]; then pass; else fail "tmux's mouse flag is '$flags', expected 0"; fi
keys q
expect_screen 'rigdeck-exit=0'

summary
[ "$FAILED" -eq 0 ]
