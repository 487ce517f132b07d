#!/bin/sh
# test_bigfleet_keys.sh - issue 35's keys on scripts/bigfleet.sh's fleet:
# 10,000 nodes in ten regions (r0..r9) and 1,000 jobs, built in the test's
# own temporary folder by tests/bench/bigfleet_gen (a few seconds), the
# console at 200x60.  '#' shows all ten regions on one screen and G
# reaches the last node; c changes the legend; '/' with a column:value
# filter on Nodes; the sort picker (F6, O); '>' from a running job to its
# node and '<' back; a mouse click on a tab (xterm's SGR report, as
# test_jump_mouse.sh sends it); u on the Dashboard.  The console reads
# 10,000 nodes per table: every wait is generous.
. tests/tui/lib.sh
unset RIGDECK_NOW   # as bigfleet.sh: the console on the system clock

GEN="$(dirname "$BIN")/bench/bigfleet_gen"
[ -x "$GEN" ] || make --no-print-directory BUILD="$(dirname "$BIN")" "$GEN" >"$TMP/make.log" 2>&1
STORE="sqlite:$TMP/big.db"
if ! "$GEN" "$STORE" 10000 1000 tests/inventories tests/specs/sched >"$TMP/gen.log" 2>&1; then
    echo "  FAIL could not build the 10,000-node fleet:" >&2
    cat "$TMP/make.log" "$TMP/gen.log" >&2 2>/dev/null
    FAILED=1
    summary
    exit 1
fi

start_shell 200 60
# xterm's terminfo: ncurses asks for SGR mouse reports; no cloud sync; the
# column choices (none made here) in the test's folder
type_ "clear; TERM=xterm-256color XDG_CONFIG_HOME=$TMP/xdg RIGDECK_CLOUD_SYNC_S=0 $BIN --store $STORE; echo rigdeck-exit=\$?"
keys Enter
expect_screen 'Nodes · 10000 of 10000' 90

case_ "# shows every region's cells on one screen; End reaches the last node"
keys '#'
expect_screen 'Fleet map · 10000 of 10000' 30
expect_screen '10000 nodes by region, coloured by state'
for r in 0 1 2 3 4 5 6 7 8 9; do
    expect_screen " r$r: [AMDPOR]"
done
# G and g (End and Home as xterm sends them are not what tmux types here)
keys G
expect_screen '^ n09999  region r9  active' 15
keys g
expect_screen '^ n00000  region r0'

case_ "c changes the colouring and its legend"
keys c
expect_screen 'colour: GPU allocation  \. <20%' 15
expect_screen '^ n00000  region r0  .*allocated'

case_ "/ with a column:value filter on Nodes"
keys 3 /
type_ 'region:r3'
keys Enter
expect_screen 'Nodes · 1000 of 10000 · filter "region:r3"' 30
expect_screen '^  n00003  *r3 '
keys / C-u Enter
expect_screen 'Nodes · 10000 of 10000  ' 30

case_ "F6 and O: the sort picker"
keys F6
expect_screen 'Sort Nodes by' 15
keys Enter
expect_screen 'sorted by NAME ascending' 30
keys O
expect_screen 'Sort Nodes by' 15
keys Enter
expect_screen 'sorted by NAME descending' 30
keys g
expect_screen '^  n09999  *r9 '

case_ "> from a running job to its node, < back"
keys 6
expect_screen 'Jobs: \[Jobs\] Projects Environments · 1000 of 1000' 60
keys /
type_ 'state:running'
keys Enter
expect_screen '· [0-9][0-9]* of 1000 · filter "state:running"' 30
keys g '>'
expect_screen '^job-[0-9a-f]* -> node n[0-9]* (< goes back)' 30
expect_screen 'Nodes · 10000 of 10000'
keys '<'
expect_screen '^back to Jobs job-[0-9a-f]*' 30
expect_screen 'Jobs: \[Jobs\]'

case_ "a click on a tab switches pane"
# " 1 Providers  2 Regions ": the 2 at column 15
type_ "$(printf '\033[<0;16;2M\033[<0;16;2m')"
expect_screen 'Regions · 10 of 10' 30

case_ "u on the Dashboard: the use per region, then per account"
keys 0
expect_screen '^ Use by region  (u: by account)' 60
keys u
expect_screen '^ Use by account  (u: by region)' 30
keys q
expect_screen 'rigdeck-exit=0' 15

summary
exit $((FAILED != 0))
