#!/bin/sh
# demo.sh BIN - builds a demo fleet in build/demo.db (once) and shows it.
set -eu
BIN=${1:-build/rigdeck}
STORE=sqlite:build/demo.db
if [ ! -e build/demo.db ]; then
    "$BIN" --batch --store "$STORE" -f scripts/demo-fleet.txt >/dev/null
fi
# The full-screen console is the console issue's work and is not built yet,
# so this shows the demo store through batch mode, and says so.  When the
# console lands this becomes: exec "$BIN" --store "$STORE"
echo "rigdeck: the full-screen console is not built yet; the demo store in batch mode:"
echo
"$BIN" --batch --store "$STORE" -c "account list" -c "project list"
echo
echo "Explore it:  $BIN --batch --store $STORE -c help"
