#!/bin/sh
# demo.sh BIN - builds a demo fleet in build/demo.db (once) and opens the
# console on it.
set -eu
BIN=${1:-build/rigdeck}
STORE=sqlite:build/demo.db
if [ ! -e build/demo.db ]; then
    "$BIN" --batch --store "$STORE" -f scripts/demo-fleet.txt >/dev/null
fi
exec "$BIN" --store "$STORE"
