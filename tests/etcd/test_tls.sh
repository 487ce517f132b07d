#!/bin/sh
# test_tls.sh - the store over etcds:// with mutual TLS.
#
# Makes a CA, a server certificate (for 127.0.0.1) and a client certificate
# with openssl, starts one etcd member that demands client certificates, then
# runs the whole conformance suite over etcds:// (TLS files passed in the
# URL query) and checks the CLI flags --cacert/--cert/--key, and that a
# client without a certificate or trusting another CA gets exit 3.
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
set -u
BUILD=${BUILD:-build}
WRAP=${RIGDECK_WRAP:-}
BIN=$BUILD/rigdeck
CONF=$BUILD/tests/store_conformance
T=$(mktemp -d "${TMPDIR:-/tmp}/rdtls.XXXXXX")
PASSED=0
FAILED=0
pass () { PASSED=$((PASSED + 1)); }
fail () { FAILED=$((FAILED + 1)); echo "  FAIL $1" >&2; }

. tests/etcd/lib.sh
trap 'etcd_stop_all; rm -rf "$T"' EXIT

# ---- certificates -----------------------------------------------------------
mkcert () {   # mkcert NAME SUBJECT EXT_FILE
    openssl req -new -newkey rsa:2048 -nodes -keyout "$T/$1.key" -subj "$2" -out "$T/$1.csr" 2>/dev/null &&
        openssl x509 -req -in "$T/$1.csr" -CA "$T/ca.crt" -CAkey "$T/ca.key" -CAcreateserial \
            -days 2 -extfile "$3" -out "$T/$1.crt" 2>/dev/null
}
openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$T/ca.key" -subj "/CN=rigdeck test CA" \
    -days 2 -out "$T/ca.crt" 2>/dev/null || { echo "openssl failed"; exit 1; }
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' >"$T/server.ext"
printf 'extendedKeyUsage=clientAuth\n' >"$T/client.ext"
mkcert server "/CN=127.0.0.1" "$T/server.ext" && mkcert client "/CN=rigdeck" "$T/client.ext" ||
    { echo "openssl failed"; exit 1; }
# a second CA, to show that a server it did not sign is refused
openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$T/other.key" -subj "/CN=other CA" \
    -days 2 -out "$T/other.crt" 2>/dev/null

# ---- etcd -------------------------------------------------------------------
ETCD_SCHEME=https
ETCD_TLS_ARGS="--cert-file $T/server.crt --key-file $T/server.key --trusted-ca-file $T/ca.crt --client-cert-auth"
ETCDCTL_TLS_ARGS="--cacert $T/ca.crt --cert $T/client.crt --key $T/client.key"
if ! etcd_single "$T/etcd"; then
    echo "batch-summary: passed=0 failed=1"
    exit 1
fi
HOSTPORT=127.0.0.1:$(cat "$T/etcd/m1.port")
URL="etcds://$HOSTPORT?cacert=$T/ca.crt&cert=$T/client.crt&key=$T/client.key"

# ---- the conformance suite over TLS ----------------------------------------
# shellcheck disable=SC2086
$WRAP "$CONF" "$URL" >"$T/conf.log" 2>&1
rc=$?
p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$T/conf.log" | tail -n 1)
if [ "$rc" = 0 ] && [ -n "$p" ]; then
    PASSED=$((PASSED + p))
else
    fail "conformance over etcds:// (exit $rc)"
    grep -v '^\[ \(RUN\|  *OK\) ' "$T/conf.log" | tail -n 30 >&2
fi

# ---- the CLI flags ------------------------------------------------------------
rdtls () {
    # shellcheck disable=SC2086
    $WRAP "$BIN" --batch --store "etcds://$HOSTPORT" "$@" >"$T/out" 2>"$T/err"
    RC=$?
}
rdtls --cacert "$T/ca.crt" --cert "$T/client.crt" --key "$T/client.key" -c "account create tls-alice"
[ "$RC" = 0 ] && pass || fail "account create with --cacert/--cert/--key: exit $RC: $(cat "$T/err")"
rdtls --cacert "$T/ca.crt" --cert "$T/client.crt" --key "$T/client.key" --output json -c "account show tls-alice"
grep -q '"tls-alice"' "$T/out" && pass || fail "account show over TLS: $(cat "$T/out" "$T/err")"

rdtls --cacert "$T/ca.crt" -c "account list"
[ "$RC" = 3 ] && pass || fail "no client certificate: want exit 3, got $RC"
grep -q "etcd $HOSTPORT" "$T/err" && pass || fail "no client certificate: message lacks the endpoint: $(cat "$T/err")"
rdtls --cacert "$T/other.crt" --cert "$T/client.crt" --key "$T/client.key" -c "account list"
[ "$RC" = 3 ] && pass || fail "untrusted server: want exit 3, got $RC"
rdtls --cacert "$T/ca.crt" --cert "$T/missing.crt" --key "$T/client.key" -c "account list"
[ "$RC" = 3 ] && pass || fail "missing certificate file: want exit 3, got $RC"
# plain http against a TLS member is refused too
# shellcheck disable=SC2086
$WRAP "$BIN" --batch --store "etcd://$HOSTPORT" -c "account list" >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" = 3 ] && pass || fail "etcd:// against a TLS member: want exit 3, got $RC"

echo "batch-summary: passed=$PASSED failed=$FAILED"
[ "$FAILED" = 0 ]
