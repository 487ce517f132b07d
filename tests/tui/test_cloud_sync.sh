#!/bin/sh
# test_cloud_sync.sh - the console runs `cloud sync` in the background
# against a fake Compute Engine (tests/gcp/fake_gce.py, as in
# tests/batch/test_cloud.sh): a GCP region's provisioning storage node turns
# active on screen without a keypress, S runs a round on request, and a
# --read-only console never syncs (S is refused by the read-only guard).
. tests/tui/lib.sh
export RIGDECK_GCP_POLL_MS=20 RIGDECK_GCP_BACKOFF_MS=10

openssl genrsa -out "$TMP/sa.pem" 2048 2>/dev/null
mkkey () { # mkkey PEM OUT [PORT]
    python3 -c "
import json, sys
k = {'type': 'service_account', 'project_id': 'p1', 'private_key_id': 'k1', 'private_key': open(sys.argv[1]).read(),
     'client_email': 'sa@p1.iam.gserviceaccount.com'}
if len(sys.argv) > 3: k['token_uri'] = 'http://127.0.0.1:%s/token' % sys.argv[3]
json.dump(k, open(sys.argv[2], 'w'))" "$@"
}
mkkey "$TMP/sa.pem" "$TMP/fake-key.json"
python3 tests/gcp/fake_gce.py --key "$TMP/fake-key.json" --port-file "$TMP/port" --log "$TMP/fake.log" >"$TMP/fake.out" 2>&1 &
FAKE_PID=$!
trap 'kill $FAKE_PID 2>/dev/null; T kill-server 2>/dev/null; rm -rf "$TMP"' EXIT
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(cat "$TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { echo "  FAIL fake_gce did not start: $(cat "$TMP/fake.out")" >&2; FAILED=1; summary; exit 1; }
export RIGDECK_GCP_ENDPOINT=http://127.0.0.1:$PORT/compute/v1
mkkey "$TMP/sa.pem" "$TMP/sa.json" "$PORT"
python3 tests/gcp/fake_gce.py --client "http://127.0.0.1:$PORT" \
    --post '{"quotas": {"us-central1": {"NVIDIA_A100_GPUS": 2, "CPUS": 24, "LOCAL_SSD_TOTAL_GB": 750}}}' >/dev/null
instances () { python3 tests/gcp/fake_gce.py --client "http://127.0.0.1:$PORT" --field "instance.rigdeck-$1.status"; }

if ! rd -c "provider enable gcp --key-file $TMP/sa.json" \
        -c "region create burst --provider gcp --gcp-region us-central1 --storage-class small --agent none" \
        >"$TMP/setup.log" 2>&1; then
    echo "  FAIL could not set up the GCP region:" >&2
    cat "$TMP/setup.log" >&2
    FAILED=1
    summary
    exit 1
fi
run_console () { # run_console ENV-ASSIGNMENTS ARGS...
    envs=$1; shift
    type_ "clear; env $envs $BIN --store $STORE $*; echo rigdeck-exit=\$?"
    keys Enter
}

start_shell 120 40

case_ "--read-only: no background round, and S is refused"
run_console RIGDECK_CLOUD_SYNC_S=1 --read-only
expect_screen 'burst-storage .*provisioning' 15
if wait_for 'sync [0-9:]* \|cloud sync' 3; then fail "a read-only console ran cloud sync"; else pass; fi
keys S
expect_screen 'read-only session (--read-only): S (sync) is disabled'
[ -z "$(instances burst-storage)" ] && pass || fail "the fake has an instance after a read-only session"
keys q
expect_screen 'rigdeck-exit=0'

case_ "the timer's round makes the provisioning node active on screen, no key pressed"
run_console RIGDECK_CLOUD_SYNC_S=2
expect_screen 'burst-storage .*provisioning' 15
expect_screen 'sync [0-9:]* ok' 20
expect_screen 'cloud sync [0-9:]* (.*): 1 created, 1 activated'
expect_screen 'burst-storage .*active'
[ "$(instances burst-storage)" = RUNNING ] && pass || fail "the fake's instance is not RUNNING"
keys q
expect_screen 'rigdeck-exit=0'

case_ "S runs a round on request; the footer offers it"
run_console RIGDECK_CLOUD_SYNC_S=0
expect_screen 'burst-storage .*active' 15
expect_screen 'S sync'
if wait_for 'sync [0-9:]* ok' 2; then fail "a round ran with the timer off"; else pass; fi
keys S
expect_screen 'sync [0-9:]* ok' 20
expect_screen 'cloud sync [0-9:]* (.*): 1 GCP region, nothing to change'

case_ "Quotas: e sets a metric's limit through a form that checks numbers"
keys 5
expect_screen 'burst .*us-central1 .*NVIDIA_A100_GPUS .*/2'
keys /
type_ "NVIDIA_A100_GPUS"
keys Enter
keys e
expect_screen 'Set a quota'
expect_screen 'runs: quota set burst NVIDIA_A100_GPUS 2 --usage'
keys Down C-u
type_ "four"
expect_screen 'must be a whole number'
keys C-u
type_ "4"
keys Enter
expect_screen 'done: quota set burst NVIDIA_A100_GPUS 4'
expect_screen 'NVIDIA_A100_GPUS .*/4'
keys q
expect_screen 'rigdeck-exit=0'
summary
