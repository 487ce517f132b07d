# secure.sh - the frame of a scenario on a secured store, sourced first by
# tests/etcd/test_secure_*.sh: one etcd member of its own under $SEC, the
# batch helpers on it (tests/batch/lib.sh, daemons.sh), a master key, all
# stopped and removed when the scenario ends; and
#
#   as USER ARGS...         rigdeck --batch as etcd user USER (password in
#                           $SEC/USER.pw), into $OUT, $ERR and $RC
#   as_json USER LINE       one command's JSON answer as USER
#   field_is LINE FIELD V   FIELD of root's answer to LINE is V
#   secure_with USER...     `store secure`, then credentials for each USER
. tests/etcd/lib.sh
SEC=$(mktemp -d "${TMPDIR:-/tmp}/rdsec.XXXXXX")
etcd_single "$SEC/etcd" >/dev/null || { echo "batch-skip: etcd did not start"; exit 0; }
export RIGDECK_TEST_STORE_URL="$ETCD_URL"
. tests/batch/lib.sh
. tests/batch/daemons.sh
trap 'daemons_cleanup; etcd_stop_all; rm -rf "$SEC"' EXIT
export RIGDECK_MASTER_KEY="$SEC/master.key"

as () {
    u=$1; shift
    $WRAP "$BIN" --batch --store "$STORE" --etcd-user "$u" --etcd-password-file "$SEC/$u.pw" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
as_json () { $WRAP "$BIN" --batch --store "$STORE" --etcd-user "$1" --etcd-password-file "$SEC/$1.pw" --output json -c "$2" 2>/dev/null; }
field_is () { got=$(as_json root "$1" | python3 tests/jget.py "$2"); [ "$got" = "$3" ]; }

secure_with () {
    rd -c "store secure --root-password-file $SEC/root.pw"
    expect_status 0
    for u in "$@"; do
        as root -c "store credentials $u --password-file $SEC/$u.pw"
        expect_status 0
    done
}
