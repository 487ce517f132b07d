#!/bin/sh
# test_secure_connect.sh - a notebook on a secured store (execution.md §6;
# docs/security.md).
#
# One etcd member, secured; alice submits a notebook job to a node of the
# platform's public region, whose agent logs in as node:n1 and reaches the
# store only through its work view (which must say the job is a notebook)
# and the request relay (its `job report serving` carries the token sealed).
# alice's `job connect` goes through the relay too: the controller opens
# the token with its master key, and Jupyter answers /api/status with it
# (200) and refuses without it (403).  bob's `job connect` is refused as
# for a missing job, and node:n1 may not ask where alice's worker serves.
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
set -u
. tests/etcd/secure.sh

command -v jupyter-notebook >/dev/null 2>&1 || command -v jupyter-lab >/dev/null 2>&1 ||
    skip "jupyter is not installed (Debian: jupyter-notebook)"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"

case_ "a public region's node, alice and bob, then the store secured"
rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "account create bob --plan team" -c "account deposit bob 100" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0
secure_with alice bob node:n1
RIGDECK_ETCD_USER=root RIGDECK_ETCD_PASSWORD_FILE="$SEC/root.pw" start_serve s1 --sched-every 1s
RIGDECK_ETCD_USER=node:n1 RIGDECK_ETCD_PASSWORD_FILE="$SEC/node:n1.pw" start_agent n1 --inventory $INV/a100x4.yaml \
    --address 127.0.0.1

case_ "alice's notebook runs from the work view; job connect through the relay opens Jupyter"
cat >"$SEC/nb.yaml" <<YAML
name: nb
type: notebook
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
environment: {python: "3.9", framework: pytorch, env: {RDTEST_TAG: rdtest-worker-$$}}
YAML
as alice --output json -c "job submit $SEC/nb.yaml"
expect_status 0
J=$(jget id)
wait_until 120 field_is "job show $J" state running
as alice --output json -c "job connect $J"
expect_status 0
PORT=$(jget port)
TOKEN=$(jget token)
expect_json url "http://127.0.0.1:$PORT/?token=$TOKEN"
api_up () { curl -sf -o /dev/null "http://127.0.0.1:$PORT/api/status?token=$TOKEN"; }
wait_until 120 api_up
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/status")
[ "$code" = 403 ] && pass || fail "without the token: HTTP $code, not 403"
grep -q "$J/0 serves on 127.0.0.1:$PORT" "$TMP/agent-n1.log" && pass || fail "the agent's log lacks where it serves"

case_ "bob and node:n1 may not connect to alice's notebook"
as bob -c "job connect $J"
expect_status 1
expect_err "does not exist"
expect_err_lines 1
as node:n1 -c "job connect $J"
expect_status 1
expect_err "a node's agent may only register and report"

case_ "alice's job stop ends it"
as alice -c "job stop $J"
expect_status 0
wait_until 120 field_is "job show $J" state stopped

finish
