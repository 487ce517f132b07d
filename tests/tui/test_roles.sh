#!/bin/sh
# test_roles.sh - the console offers only what the acting account's role
# may do (issue 29): core/access says which commands a role may run and on
# whose objects, and the keys, the footer, the help and the empty-table
# hints follow it.  A member sees m on its own nodes only, and m on a node
# of another account (a public region's) is refused at once, before any
# question; a viewer is offered no key that changes the store.
. tests/tui/lib.sh

INV=tests/inventories
if ! { rd -c "provider enable physical" \
        -c "region create dc --provider physical --storage local --public" \
        -c "node add dc pub-01 --agent none --minion m-01 --inventory $INV/a100x4.yaml" \
        -c "node maintenance pub-01 off" \
        -c "account create alice" -c "account create bob --role viewer" &&
      rd --as alice -c "provider enable physical" \
        -c "region create lab --provider physical --storage local" \
        -c "node add lab own-01 --agent none --minion m-02 --inventory $INV/a100x4.yaml" \
        -c "node maintenance own-01 off"; } >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not build the test fleet:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi

# select NAME: the Nodes table filtered to that one node
select_node () {
    keys /
    type_ "$1"
    keys Enter
    expect_screen "filter \"$1\""
}

start_shell 140 40

case_ "a member: no m on another account's node, and m there is refused at once"
start_console --as alice --ascii
expect_screen 'Nodes . 2 of 2' 15
select_node pub-01
expect_screen 'Nodes . 1 of 2'
expect_not_screen 'm maint'
keys m
expect_screen "node maintenance: 'pub-01' belongs to account 'default'; account 'alice' has role member"
if grep -q 'Toggle maintenance' "$SCREEN"; then fail "a question was asked"; else pass; fi
expect_state pub-01 active
case_ "a member: d and e are not offered on it either, and refused at once"
if grep -q 'e edit\|d remove' "$SCREEN"; then fail "the footer offers e or d on pub-01"; else pass; fi
keys d
expect_screen "node remove: 'pub-01' belongs to account 'default'"
if grep -q 'Remove node' "$SCREEN"; then fail "a question was asked"; else pass; fi

case_ "a member: its own node offers m, which asks first"
keys /
keys C-u
type_ "own-01"
keys Enter
expect_screen 'filter "own-01"'
expect_screen 'm maint'
keys m
expect_screen 'Toggle maintenance on own-01?'
keys n
expect_state own-01 active
case_ "a member: help marks what its role may not run and says m acts on its own rows"
keys 9
keys '?'
expect_screen 'Keys'
keys NPage NPage
expect_screen "Account 'alice' has role member"
keys q
keys q
expect_screen 'rigdeck-exit=0'

case_ "a viewer: no mutating key in the footer; each is refused at once naming the role"
start_console --as bob --ascii
expect_screen 'Nodes . 1 of 1' 15
expect_screen 'q quit'
for k in 'm maint' 'a add' 'e edit' 'd remove' 'S sync'; do
    if grep -q "$k" "$SCREEN"; then fail "the footer offers '$k'"; else pass; fi
done
keys m
expect_screen "m F9 (maint) is disabled: node maintenance: account 'bob' is a viewer and may only read"
keys a
expect_screen "a F7 (add) is disabled: node add: account 'bob' is a viewer"
if grep -q 'Add a node' "$SCREEN"; then fail "the add form opened"; else pass; fi
case_ "a viewer: help marks the keys disabled for its role"
keys '?'
expect_screen 'm F9 .*\[disabled: role viewer\]'
keys q
case_ "a viewer: an empty table does not invite it to press a"
keys 8
expect_screen 'No datastores yet\.'
expect_not_screen 'press a to add'
keys q
expect_screen 'rigdeck-exit=0'

case_ "an admin is still offered everything"
start_console --ascii
expect_screen 'Nodes . 2 of 2' 15
expect_screen 'm maint'
expect_screen 'a add'
keys 8
expect_screen 'press a to add one'
keys q
expect_screen 'rigdeck-exit=0'

summary
[ "$FAILED" = 0 ]
