#!/bin/sh
# Where the signed token request may go: a key's token_uri is read the way
# libcurl reads it, so a user name and password that look like a loopback
# host ("http://localhost:1@192.0.2.2:PORT/token"), a host that starts with
# 127.0.0.1, and the other tricks are refused by `provider enable gcp` with
# one line naming token_uri and the host, the store unchanged; plain
# http:// to a genuine loopback fake still works and never goes through a
# proxy from the environment; an https token_uri is used as is.
#
# Every rigdeck here runs with http_proxy and https_proxy pointing at a
# recorder (tests/gcp/record_proxy.py) that forwards nothing: the request
# lines it logs are the requests that would have left this machine.
. tests/batch/lib.sh
export RIGDECK_MASTER_KEY="$TMP/master.key"
export RIGDECK_GCP_POLL_MS=20 RIGDECK_GCP_BACKOFF_MS=10

openssl genrsa -out "$TMP/sa.pem" 2048 2>/dev/null
mkkey () { # mkkey OUT [TOKEN_URI]
    python3 -c "
import json, sys
k = {'type': 'service_account', 'project_id': 'p1', 'private_key_id': 'k1', 'private_key': open(sys.argv[1]).read(),
     'client_email': 'sa@p1.iam.gserviceaccount.com'}
if len(sys.argv) > 3: k['token_uri'] = sys.argv[3]
json.dump(k, open(sys.argv[2], 'w'))" "$TMP/sa.pem" "$@"
}
wait_port () { # wait_port FILE: its contents once written
    i=0
    while [ ! -s "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    cat "$1" 2>/dev/null
}
mkkey "$TMP/fake-key.json"
python3 tests/gcp/fake_gce.py --key "$TMP/fake-key.json" --port-file "$TMP/port" >"$TMP/fake.out" 2>&1 &
FAKE_PID=$!
python3 tests/gcp/record_proxy.py --port-file "$TMP/proxy-port" --log "$TMP/proxy.log" >"$TMP/proxy.out" 2>&1 &
PROXY_PID=$!
trap 'kill $FAKE_PID $PROXY_PID 2>/dev/null; rm -rf "$TMP"' EXIT
PORT=$(wait_port "$TMP/port")
PPORT=$(wait_port "$TMP/proxy-port")
[ -n "$PORT" ] && [ -n "$PPORT" ] || {
    echo "a fake did not start: $(cat "$TMP/fake.out" "$TMP/proxy.out")"; echo "batch-summary: passed=0 failed=1"; exit 1; }
FAKE=http://127.0.0.1:$PORT
export RIGDECK_GCP_ENDPOINT=$FAKE/compute/v1
fake () { python3 tests/gcp/fake_gce.py --client "$FAKE" --field "$1"; }

# Only rigdeck sees the proxy: the test's own helpers talk to the fake directly.
PROXY=http://127.0.0.1:$PPORT
WRAP="env -u no_proxy -u NO_PROXY http_proxy=$PROXY https_proxy=$PROXY HTTPS_PROXY=$PROXY all_proxy=$PROXY ALL_PROXY=$PROXY $WRAP"
proxy_quiet () { # proxy_quiet WHAT: nothing went through the proxy
    if [ -s "$TMP/proxy.log" ]; then fail "$1 sent requests off the machine: $(cat "$TMP/proxy.log")"; else pass; fi
}

case_ "a genuine loopback token_uri (the fake's) works, straight to 127.0.0.1 and past the proxy"
mkkey "$TMP/good.json" "$FAKE/token"
rd -c "account create alice --plan team" -c "account deposit alice 100"
rd --as alice -c "provider enable gcp --key-file $TMP/good.json" \
   -c "region create burst --provider gcp --gcp-region us-central1 --storage-class small --agent none"
expect_status 0
rd --as alice --output json -c "cloud sync"
expect_status 0
expect_json created.0.node burst-storage
expect_json errors.len 0
[ "$(fake counters.token_issued)" = 1 ] && pass || fail "the fake issued $(fake counters.token_issued) tokens, expected 1"
proxy_quiet "a loopback token_uri"

case_ "token_uri tricks are refused with one line naming token_uri, the store unchanged"
for bad in "http://localhost:1@192.0.2.2:$PORT/token|its host is \"192.0.2.2\"" \
           "http://127.0.0.1:$PORT@192.0.2.2:$PORT/token|its host is \"192.0.2.2\"" \
           "http://localhost@192.0.2.2:$PORT/token|its host is \"192.0.2.2\"" \
           "http://[::1]@192.0.2.2:$PORT/token|its host is \"192.0.2.2\"" \
           "HTTP://localhost:1@192.0.2.2:$PORT/token|its host is \"192.0.2.2\"" \
           "https://localhost:1@192.0.2.2:$PORT/token|must not hold a user name or password" \
           "http://127.0.0.1.evil.example:$PORT/token|its host is \"127.0.0.1.evil.example\"" \
           "http://localhost.evil.example:$PORT/token|its host is \"localhost.evil.example\"" \
           "http://192.0.2.2:$PORT/token#@127.0.0.1|its host is \"192.0.2.2\"" \
           "http:///token|names no host" \
           "ftp://127.0.0.1:$PORT/token|must start with https://"; do
    uri=${bad%%|*} msg=${bad#*|}
    mkkey "$TMP/bad.json" "$uri"
    before=$(snapshot)
    rd --as alice -c "provider enable gcp --key-file $TMP/bad.json"
    expect_refused 1 "$before" "^rigdeck: gcp key: token_uri.*$msg"
    # the stored key is still the good one: a sync gets a token from the fake
    rd --as alice --output json -c "cloud sync"
    expect_status 0
    expect_json errors.len 0
done
[ "$(fake counters.token_issued)" -ge 12 ] && pass || fail "the syncs after refused keys fetched no tokens from the fake"
proxy_quiet "a refused token_uri"

case_ "the key kept after the refusals is the good one"
rd --as alice --output json -c "provider show gcp"
expect_json token_uri "$FAKE/token"

case_ "an https token_uri is used as is (through the proxy here, which answers 502)"
mkkey "$TMP/https.json" "https://oauth2.googleapis.com/token"
rd --as alice -c "provider enable gcp --key-file $TMP/https.json"
expect_status 0
rd --as alice --output json -c "cloud sync"
grep -q '^CONNECT oauth2.googleapis.com:443 ' "$TMP/proxy.log" && pass ||
    fail "no token request to oauth2.googleapis.com: $(cat "$TMP/proxy.log")"
grep -v '^CONNECT oauth2.googleapis.com:443 ' "$TMP/proxy.log" >"$TMP/other.log"
[ -s "$TMP/other.log" ] && fail "other requests went to the proxy: $(cat "$TMP/other.log")" || pass
finish
