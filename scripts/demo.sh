#!/bin/sh
# demo.sh BIN - builds the demo fleet in build/demo.db (once, through the
# command language: scripts/demo_fleet.py) and opens the console on it.
set -eu
BIN=${1:-build/rigdeck}
STORE=sqlite:build/demo.db
export RIGDECK_MASTER_KEY="${RIGDECK_MASTER_KEY:-build/demo.key}"
if [ ! -e build/demo.db ]; then
    python3 scripts/demo_fleet.py "$BIN" "$STORE.building" || { rm -f build/demo.db.building*; exit 1; }
    mv build/demo.db.building build/demo.db
fi
exec "$BIN" --store "$STORE"
