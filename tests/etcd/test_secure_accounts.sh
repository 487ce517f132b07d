#!/bin/sh
# test_secure_accounts.sh - roles and account remove on a secured etcd store:
# `account set --role` gives or takes the account's etcd user etcd's root
# role in the same command, and `account remove` deletes its etcd user and
# role, so a removed account cannot even log in.  One etcd member of its own.
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
command -v etcd >/dev/null 2>&1 && command -v etcdctl >/dev/null 2>&1 || {
    echo "batch-skip: etcd/etcdctl not installed"; echo "batch-summary: passed=0 failed=0"; exit 0; }
. tests/etcd/lib.sh
SEC=$(mktemp -d "${TMPDIR:-/tmp}/rdsecacct.XXXXXX")
etcd_single "$SEC/etcd" || { echo "  FAIL could not start etcd" >&2; echo "batch-summary: passed=0 failed=1"; exit 1; }
RIGDECK_TEST_STORE_URL=$ETCD_URL
. tests/batch/lib.sh
trap 'etcd_stop_all; rm -rf "$TMP" "$SEC"' EXIT
export RIGDECK_MASTER_KEY="$TMP/master.key"
ROOT="--etcd-user root --etcd-password-file $TMP/root.pw"
# etcd_roles USER: the etcd roles of USER, one line, sorted.
etcd_roles () {
    etcdctl --endpoints "${ETCD_URL#etcd://}" --user "root:$(cat "$TMP/root.pw")" user get "$1" 2>/dev/null |
        sed -n 's/^Roles: *//p' | tr ' ' '\n' | sort | tr '\n' ' '
}

case_ "a secured store with two accounts that have etcd users"
rd -c "account create alice" -c "account create bob" -c "store secure --root-password-file $TMP/root.pw"
expect_status 0
# shellcheck disable=SC2086
rd $ROOT -c "store credentials alice --password-file $TMP/alice.pw" -c "store credentials bob --password-file $TMP/bob.pw"
expect_status 0
[ "$(etcd_roles alice)" = "rigdeck:alice " ] && pass || fail "alice's etcd roles: '$(etcd_roles alice)'"

case_ "account set --role admin gives the etcd user the root role; back to member takes it away"
# shellcheck disable=SC2086
rd $ROOT --output json -c "account set alice --role admin"
expect_status 0
expect_json role admin
[ "$(etcd_roles alice)" = "rigdeck:alice root " ] && pass || fail "admin alice's etcd roles: '$(etcd_roles alice)'"
rd --etcd-user alice --etcd-password-file "$TMP/alice.pw" --as alice --output json -c "store dump --prefix /rigdeck/accounts/"
expect_status 0
expect_out '/rigdeck/accounts/bob'
# shellcheck disable=SC2086
rd $ROOT --output json -c "account set alice --role member"
expect_status 0
expect_json role member
[ "$(etcd_roles alice)" = "rigdeck:alice " ] && pass || fail "member alice's etcd roles: '$(etcd_roles alice)'"

case_ "account remove deletes the etcd user and its role"
# shellcheck disable=SC2086
rd $ROOT --output json -c "account remove bob"
expect_status 0
expect_json state removed
etcdctl --endpoints "${ETCD_URL#etcd://}" --user "root:$(cat "$TMP/root.pw")" user list >"$OUT" 2>&1
expect_no_out '^bob$'
etcdctl --endpoints "${ETCD_URL#etcd://}" --user "root:$(cat "$TMP/root.pw")" role list >"$OUT" 2>&1
expect_no_out '^rigdeck:bob$'
expect_out '^rigdeck:alice$'
rd --etcd-user bob --etcd-password-file "$TMP/bob.pw" --as bob -c "account list"
expect_status 3
expect_err "cannot log in as 'bob'"
# shellcheck disable=SC2086
rd $ROOT --output json -c "ledger verify"
expect_json ok true

finish
