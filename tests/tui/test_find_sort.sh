#!/bin/sh
# test_find_sort.sh - find and order in the console (issue 35 items 2 and
# 5), in one wide terminal: the '/' filter with column:value terms and its
# error, n/N stepping through the rows with the wrap note, the sort picker
# (F6) and the header's arrow, the column chooser (C) and its choice kept
# across a restart in $XDG_CONFIG_HOME/rigdeck/columns, '/' search and n/N
# in a node's details (its inventory as sections, no JSON) and in help,
# and a waiting job's long reason shown whole on a wide terminal.
. tests/tui/lib.sh

INV=tests/inventories
if ! rd -c "provider enable physical" \
        -c "region create dc-east --provider physical --storage local --public" \
        -c "region create lab --provider physical --storage local" \
        -c "node add dc-east gpu-01 --agent none --minion m-01 --inventory $INV/a100x4.yaml" \
        -c "node add dc-east gpu-02 --agent none --minion m-02 --inventory $INV/a100x4.yaml" \
        -c "node add lab ws-01 --agent none --minion m-03 --inventory $INV/rtx3090x2.yaml --upnp off" \
        -c "node maintenance gpu-01 off" -c "node maintenance gpu-02 off" -c "node maintenance ws-01 off" \
        -c "job submit tests/specs/never-fits.yaml" >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the test fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi

XDG="$TMP/xdg"
start_shell 300 45
type_ "export XDG_CONFIG_HOME=$XDG"
keys Enter
start_console
expect_screen 'Nodes · 3 of 3' 15

case_ "column:value filter, several terms ANDed"
keys /
type_ "region:lab"
keys Enter
expect_screen 'Nodes · 1 of 3'
expect_screen 'filter "region:lab"'
keys /
keys C-u
type_ "Region:dc gpu_type:a100 02"
keys Enter
expect_screen 'Nodes · 1 of 3'
expect_screen 'gpu-02'
expect_not_screen 'gpu-01'

case_ "an unknown column: one line naming it and the valid ones, nothing changed"
keys /
keys C-u
type_ "colour:red"
keys Enter
expect_screen "no column 'colour' in this table; columns: name, region, role, state, gpu_type"
expect_screen 'Nodes · 1 of 3'
expect_screen 'filter "Region:dc gpu_type:a100 02"'

case_ "n and N step through the filtered rows, going round"
keys /
keys C-u
type_ "gpu"
keys Enter
expect_screen 'Nodes · 2 of 3'
keys g n
expect_screen 'match 2 of 2'
keys n
expect_screen 'search hit BOTTOM, continuing at TOP'
keys N
expect_screen 'search hit TOP, continuing at BOTTOM'
keys /
keys C-u
keys Enter
expect_screen 'Nodes · 3 of 3'

# the line number of the first row holding $1 on screen
row_of () { shot; grep -n -- "$1" "$SCREEN" | head -1 | cut -d: -f1; }

case_ "the sort picker sorts by a column; again turns it round; the header says so"
keys F6
expect_screen 'Sort Nodes by'
expect_screen 'GPU TYPE'
keys Enter
expect_screen 'sorted by NAME ascending'
expect_screen 'sort NAME ▲'
a=$(row_of ' gpu-01 '); b=$(row_of ' ws-01 ')
if [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]; then pass; else fail "ascending: gpu-01 (line $a) not above ws-01 (line $b)"; fi
keys O
expect_screen 'Sort Nodes by'
keys Enter
expect_screen 'sorted by NAME descending'
expect_screen 'NAME▼'
a=$(row_of ' gpu-01 '); b=$(row_of ' ws-01 ')
if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt "$a" ]; then pass; else fail "descending: ws-01 (line $b) not above gpu-01 (line $a)"; fi

case_ "the column chooser hides a column and saves the choice"
expect_screen ' REGION '
keys C
expect_screen 'Columns of Nodes'
expect_screen '\[x\] REGION'
keys j Space
expect_screen '\[ \] REGION'
keys Enter
expect_screen "columns of Nodes saved in $XDG/rigdeck/columns"
expect_not_screen ' REGION '
if grep -q '^nodes/nodes = name,-region,' "$XDG/rigdeck/columns" 2>/dev/null; then pass; else
    fail "the columns file does not hide region: $(cat "$XDG/rigdeck/columns" 2>&1)"; fi

case_ "a node's details: the inventory as sections, searched with / and n"
keys /
keys C-u
type_ "name:gpu-01"
keys Enter
expect_screen 'Nodes · 1 of 3'
keys Enter
expect_screen 'Nodes gpu-01'
expect_screen '^ *inventory: *$'
expect_screen '    - model: a100'
expect_screen '      memory_gb: 40'
expect_not_screen '{"model"'
keys /
type_ "size_gb"
keys Enter
expect_screen '/size_gb: line [0-9]* of'
keys n n n n n
expect_screen 'search hit BOTTOM, continuing at TOP: size_gb'
keys /
type_ "no-such-text"
keys Enter
expect_screen 'pattern not found: no-such-text'
keys Escape
expect_not_screen 'Nodes gpu-01'

case_ "help is searched the same way"
keys '?'
expect_screen 'column chooser'
keys /
type_ "sort picker"
keys Enter
expect_screen '/sort picker: line'
keys N N N
expect_screen 'search hit TOP, continuing at BOTTOM: sort picker'
keys Escape

case_ "a wide terminal gives the waiting reason its width"
keys 6
expect_screen 'Jobs: \[Jobs\] Projects Environments · 1 of 1' 15
expect_screen 'has no credit left (its wallet is at or below zero); [0-9] nodes without enough free GPUs; 1 node .*[a-z)] *$' 30

case_ "the column choice survives a restart"
keys q
expect_screen 'rigdeck-exit=0' 10
start_console
expect_screen 'Nodes · 3 of 3' 15
expect_screen ' GPU TYPE '
expect_not_screen ' REGION '

case_ "a bad columns file falls back to the defaults"
keys q
expect_screen 'rigdeck-exit=0' 10
printf 'nodes/nodes = \001\002,,-,=\n\377garbage\n' >"$XDG/rigdeck/columns"
start_console
expect_screen 'Nodes · 3 of 3' 15
expect_screen ' REGION '
keys q
expect_screen 'rigdeck-exit=0' 10

summary
