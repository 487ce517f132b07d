#!/bin/sh
# test_console.sh - the console end to end in a real terminal (tmux, see
# lib.sh): panes, filter, details, maintenance with confirmation, marks,
# live updates from batch, the ':' prompt, help, removal and the add form,
# resizing, quitting, --read-only, --theme and NO_COLOR.  The store is
# prepared, and checked, with --batch.
. tests/tui/lib.sh

# ---- a small fleet, built through the command language -------------------
INV=tests/inventories
if ! rd -c "provider enable physical" \
        -c "region create dc-east --provider physical --storage local --public" \
        -c "region create lab --provider physical --storage local" \
        -c "node add dc-east gpu-01 --agent none --minion m-01 --inventory $INV/a100x4.yaml" \
        -c "node add dc-east gpu-02 --agent none --minion m-02 --inventory $INV/a100x4.yaml" \
        -c "node add lab ws-01 --agent none --minion m-03 --inventory $INV/rtx3090x2.yaml --upnp off" \
        -c "node maintenance gpu-01 off" -c "node maintenance gpu-02 off" -c "node maintenance ws-01 off" \
        >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the test fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi

start_shell 120 40

case_ "starts on the Nodes pane with header and footer"
start_console
expect_screen 'gpu-01' 15
expect_screen "store $STORE"
expect_screen 'as default'
expect_screen 'Nodes · 3 of 3'
expect_screen 'q quit'
expect_screen 'm maint'

case_ "switch panes with digits and Tab"
keys 2
expect_screen 'Regions · 2 of 2'
expect_screen 'lab  *default'
keys Tab Tab
expect_screen 'Devices: \[Devices\] Configs · 0 of 0'
keys BTab
expect_screen 'Nodes · 3 of 3'
keys 7
expect_screen 'Billing: \[Wallets\]'
keys v
expect_screen 'Billing: Wallets \[Entries\]'
keys 9
expect_screen 'node add dc-east gpu-01'
keys 3
expect_screen 'Nodes · 3 of 3'
# nodes added --agent none are manual: no agent to wait for
expect_screen '^ *gpu-01 .* manual *$'

case_ "filter: substring, negation, clearing"
keys /
type_ "ws"
keys Enter
expect_screen 'filter "ws"'
expect_screen 'Nodes · 1 of 3'
expect_not_screen 'gpu-02'
keys /
keys C-u
type_ "!ws"
keys Enter
expect_screen 'Nodes · 2 of 3'
expect_not_screen 'ws-01'
keys /
keys C-u
keys Enter
expect_screen 'Nodes · 3 of 3'

case_ "details of the selected node"
keys g Enter
expect_screen 'Nodes gpu-01'
expect_screen 'minion_id *m-01'
expect_screen 'agent_mode *none'
keys Escape
expect_not_screen 'minion_id'

case_ "maintenance: n cancels, y confirms; the screen and batch agree"
keys j
keys m
expect_screen 'Toggle maintenance on gpu-02?'
keys n
expect_screen 'cancelled'
expect_state gpu-02 active
keys m
expect_screen 'Toggle maintenance on gpu-02?'
keys y
expect_screen 'gpu-02 .*maintenance'
expect_screen 'done: gpu-02: maintenance'
expect_state gpu-02 maintenance

case_ "space marks several nodes and the confirmation names them all"
keys g Space Space
expect_screen '2 marked'
keys m
expect_screen 'Toggle maintenance on gpu-01, gpu-02?'
keys Escape
expect_screen 'cancelled'
expect_state gpu-01 active
keys Escape

case_ "a change made by batch shows without a keypress"
start_ms=$(date +%s%3N)
rd -c "node maintenance ws-01 on" >/dev/null
if wait_for 'ws-01 .*maintenance' 5; then
    pass
    echo "  live update shown after $(( $(date +%s%3N) - start_ms )) ms"
else
    fail "ws-01 never showed maintenance after a batch change"
fi

case_ ": runs a command line, with completion and history"
keys :
type_ "region li"
keys Tab
expect_screen ':region list'
keys Enter
expect_screen ':region list  (Esc closes)'
expect_screen 'dc-east  *default  *physical'
keys Escape
keys :
type_ "node maintenance ws-01 off"
keys Enter
expect_screen 'ran: node maintenance ws-01 off'
keys Escape
expect_screen 'ws-01 .*active'
expect_state ws-01 active
keys :
keys Up
expect_screen ':node maintenance ws-01 off'
keys Escape
keys :
type_ "node frobnicate"
keys Enter
expect_screen "unknown subcommand 'frobnicate'"

case_ "help lists every binding"
keys '?'
expect_screen 'every key binding'
expect_screen 'toggle maintenance of the selected'
keys Escape
expect_not_screen 'every key binding'

case_ "d removes after confirmation; a adds through a form"
keys /
type_ "ws-01"
keys Enter
keys d
expect_screen 'Remove node ws-01?'
keys y
expect_screen 'done: ws-01'
keys /
keys C-u
keys Enter
expect_not_screen 'ws-01'
expect_state ws-01 missing
keys a
expect_screen 'Add a node'
type_ "dc-east"
keys Tab
type_ "gpu-01"
keys Tab
type_ "m-09"
keys Enter
expect_screen "node 'gpu-01' exists already\|exists already"
expect_screen 'Add a node'
keys BTab
keys C-u
type_ "gpu-09"
keys Enter
expect_screen 'done: node add dc-east gpu-09 --minion m-09'
expect_screen 'gpu-09 .*provisioning'
expect_screen '^ *gpu-09 .* none *$'   # added by the form: agent-managed, no agent yet
expect_state gpu-09 provisioning

case_ "pane 8 lists keys, datasets and models as views, live, never a key's value"
printf 'hf_console-secret-77\n' >"$TMP/hf.token"
rd -c "key add hf --type huggingface --file $TMP/hf.token" >/dev/null
rd -c "dataset add 'PASCAL VOC' --source s3://voc-bucket/voc" >/dev/null
keys 8
keys v
keys v
expect_screen 'Data: Datastores Reservations \[Keys\] Datasets Checkpoints Models · 1 of 1'
expect_screen 'default *hf *huggingface'
expect_not_screen 'console-secret'
keys v
expect_screen '\[Datasets\]'
expect_screen 'PASCAL VOC *s3 *s3://voc-bucket/voc'
keys v
keys v
expect_screen '\[Models\]'
rd -c "model add code --source https://github.com/org/repo.git" >/dev/null
expect_screen 'code *git *https://github.com/org/repo.git'
keys 3
expect_screen 'Nodes · 3 of 3'

case_ "resize to 80x24, below the minimum, and to 200x60"
T resize-window -t rd -x 80 -y 24
# Eleven panes: at 80 columns the shortest labels, one blank apart.
expect_screen '1 Prov 2 Regn 3 Node .* 0 Dash ! Alrt'
expect_screen 'gpu-02'
shot
if python3 -c "import sys; sys.exit(any(len(l.rstrip('\\n')) > 80 for l in open(sys.argv[1], encoding='utf-8')))" "$SCREEN"; then
    pass
else
    fail "a line is wider than 80"
fi
T resize-window -t rd -x 70 -y 20
expect_screen 'needs at least 80x24'
T resize-window -t rd -x 200 -y 60
expect_screen '8 Data/Datastores  9 Audit'
expect_screen 'UTILISATION'
T resize-window -t rd -x 120 -y 40
expect_screen 'Nodes · 3 of 3'

case_ "q quits with status 0 and restores the terminal"
keys q
expect_screen 'rigdeck-exit=0'
expect_not_screen 'as default'
sleep 0.2
if cmp -s "$TMP/stty.before" "$TMP/stty.after"; then pass; else fail "the terminal modes differ after quitting"; fi

case_ "--read-only refuses m, a, and a mutating ':' line, and says so"
start_console --read-only --ascii
expect_screen 'READ-ONLY' 15
expect_not_screen 'm maint'
keys m
expect_screen 'read-only session (--read-only): m F9 (maint) is disabled'
keys a
expect_screen 'a F7 (add) is disabled'
keys :
type_ "node maintenance gpu-01 on"
keys Enter
expect_screen 'refused, this session is read-only'
expect_state gpu-01 active
keys q
expect_screen 'rigdeck-exit=0'

case_ "--theme: an unknown theme is a usage error naming the themes"
type_ "clear; $BIN --store $STORE --theme neon; echo rigdeck-exit=\$?"
keys Enter
expect_screen "no theme 'neon'"
expect_screen 'rigdeck-exit=2'

case_ "a theme with unknown keys warns on stderr and in the status line"
printf 'palette: {accent: red}\nui:\n  header: {fg: accent, sparkle: 1}\n' >"$TMP/odd.yaml"
type_ "clear; $BIN --store $STORE --theme $TMP/odd.yaml 2>$TMP/theme.err; echo rigdeck-exit=\$?"
keys Enter
expect_screen "theme: .*unknown key 'sparkle'" 15
keys q
expect_screen 'rigdeck-exit=0'
if grep -q "theme warning: .*sparkle" "$TMP/theme.err"; then pass; else fail "no theme warning on stderr"; fi

case_ "NO_COLOR and the mono theme start and quit cleanly"
type_ "clear; NO_COLOR=1 $BIN --store $STORE; echo rigdeck-exit=\$?"
keys Enter
expect_screen 'Nodes · 3 of 3' 15
keys q
expect_screen 'rigdeck-exit=0'

summary
[ "$FAILED" = 0 ]
