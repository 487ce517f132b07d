#!/bin/sh
# test_lost_store.sh - the console on an etcd store that goes away and comes
# back: a banner says the store is unreachable, the console keeps running
# with what was being typed intact, and it recovers by itself.  Skipped
# when etcd is not installed.
. tests/tui/lib.sh
if ! command -v etcd >/dev/null 2>&1 || ! command -v etcdctl >/dev/null 2>&1; then
    skip "etcd/etcdctl not installed"
fi
. tests/etcd/lib.sh
trap 'T kill-server 2>/dev/null; etcd_stop_all; rm -rf "$TMP"' EXIT

if ! etcd_cluster "$TMP/etcd" 1; then
    echo "  FAIL could not start etcd" >&2
    FAILED=1
    summary
    exit 1
fi
STORE=$ETCD_URL
rd -c "provider enable physical" -c "region create dc-east --provider physical --storage local" \
   -c "node add dc-east gpu-01 --agent none --minion m-01 --inventory tests/inventories/a100x4.yaml" >/dev/null
start_shell 120 40

case_ "the console runs on etcd"
start_console
expect_screen 'gpu-01' 15

case_ "a lost store shows a banner; the console keeps running"
etcd_kill "$TMP/etcd" 1
expect_screen 'store unreachable' 20
keys :
type_ "node show gpu"
expect_screen ':node show gpu'
keys 2 >/dev/null 2>&1

case_ "the store comes back: the banner goes, the typed line is intact"
etcd_start_member "$TMP/etcd" 1
expect_not_screen 'store unreachable' 30
expect_screen ':node show gpu2'
keys BSpace
type_ "-01"
keys Enter
expect_screen 'minion_id *m-01'
keys Escape
keys q
expect_screen 'rigdeck-exit=0'

summary
[ "$FAILED" = 0 ]
