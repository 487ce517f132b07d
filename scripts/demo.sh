#!/bin/sh
# demo.sh BIN - builds the demo fleet in build/demo.db (once, through the
# command language: scripts/demo_fleet.py) and opens the console on it.
set -eu
BIN=${1:-build/rigdeck}
STORE=sqlite:build/demo.db
export RIGDECK_MASTER_KEY="${RIGDECK_MASTER_KEY:-build/demo.key}"
# The demo's GCP regions hold a made-up service account: background cloud
# sync rounds would only report Google refusing it, so they run on S only.
export RIGDECK_CLOUD_SYNC_S="${RIGDECK_CLOUD_SYNC_S:-0}"
if [ ! -e build/demo.db ]; then
    python3 scripts/demo_fleet.py "$BIN" "$STORE.building" || { rm -f build/demo.db.building*; exit 1; }
    mv build/demo.db.building build/demo.db
fi
exec "$BIN" --store "$STORE"
