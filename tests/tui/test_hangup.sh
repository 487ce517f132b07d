#!/bin/sh
# test_hangup.sh - the console exits when its terminal goes away (an SSH
# session dropped, the multiplexer killed), even when no SIGHUP reaches it:
# run in a session of its own (setsid), it is not the terminal's session,
# so only the dead terminal tells it.  Before the fix it spun forever at
# full CPU on reads that fail at once.
. tests/tui/lib.sh
rd -c "provider enable physical" -c "region create dc-east --provider physical --storage local" >/dev/null
start_shell 120 40

case_ "a console whose terminal hangs up exits"
type_ "setsid $BIN --store $STORE"
keys Enter
expect_screen 'Nodes · ' 15
pid=$(pgrep -f -- "$BIN --store $STORE" | head -1)
[ -n "$pid" ] && pass || fail "no console process found"
T kill-server
gone=0
for i in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || { gone=1; break; }
    sleep 0.1
done
if [ "$gone" = 1 ]; then pass; else
    fail "the console (pid $pid) still runs 5 s after its terminal went away"
    kill "$pid" 2>/dev/null
fi

summary
[ "$FAILED" = 0 ]
