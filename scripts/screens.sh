#!/bin/sh
# screens.sh STORE [OUTDIR] - text captures of the console's Nodes, Quotas,
# Jobs and Billing panes at 120x40 (tmux capture-pane -p), for the docs.
# STORE is a store URL, e.g. the demo fleet scripts/demo.sh builds
# (sqlite:build/demo.db); OUTDIR defaults to docs/screens.
set -eu
STORE=$1
OUT=${2:-docs/screens}
BIN=${RIGDECK_BIN:-build/rigdeck}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
mkdir -p "$OUT"
SOCK="rdscreens$$"
T () { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'T kill-server 2>/dev/null' EXIT
wait_for () { # wait_for PATTERN SECONDS
    tries=$(( $2 * 10 ))
    while [ "$tries" -gt 0 ]; do
        T capture-pane -p -t s 2>/dev/null | grep -q -- "$1" && return 0
        sleep 0.1
        tries=$((tries - 1))
    done
    echo "screens: the screen never showed '$1'" >&2
    exit 1
}
wait_gone () { # wait_gone PATTERN SECONDS
    tries=$(( $2 * 10 ))
    while [ "$tries" -gt 0 ]; do
        T capture-pane -p -t s 2>/dev/null | grep -q -- "$1" || return 0
        sleep 0.1
        tries=$((tries - 1))
    done
}
# capture NAME KEY PATTERN: switch with KEY, wait for PATTERN, save.
capture () {
    T send-keys -t s "$2"
    wait_for "$3" 30
    sleep 0.5   # let a reload that the switch started finish drawing
    wait_gone 'Loading\.\.\.' 60   # a busy machine reads a big table slowly
    wait_gone 'asking job why' 30   # the Jobs table explains waiting jobs while idle
    T capture-pane -p -t s >"$OUT/$1.txt"
    echo "screens: $OUT/$1.txt"
}
T new-session -d -s s -x 120 -y 40 -e LC_ALL=C.UTF-8 \
    "env RIGDECK_CLOUD_SYNC_S=0 $BIN --store $STORE; sleep 30"
wait_for 'Nodes · ' 60
capture nodes 3 'UTILISATION'
capture quotas 5 'RUNNABLE JOBS'
capture jobs 6 'WAITING REASON'
capture billing 7 'Billing: \[Wallets\]'
T send-keys -t s q
