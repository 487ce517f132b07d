#!/bin/sh
# test_secure_local.sh - data of type local on a secured store
# (docs/operations.md, "Local data"; docs/security.md).
#
# One etcd member, secured; alice submits an inference job whose
# data.input and data.output are local to a node whose agent logs in as
# node:n1.  The agent's `staging`/`uploading` reports with the sealed
# token go through the request relay; alice's `job send` and `job
# receive` ask the store through a relayed `job transfer` (the controller
# opens the token for her) and move the files from and to this computer
# themselves.  bob, who may not act on the job, is refused.
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
set -u
. tests/etcd/secure.sh
command -v curl >/dev/null 2>&1 || skip "curl is not installed"

case_ "a public region's node, alice and bob, then the store secured"
rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "account create bob --plan team" -c "account deposit bob 100" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0
# The fleet's master key exists before any agent seals with it (an agent
# never makes one: test_local_transfer); a sealed key makes it, as on an
# admin host in use.
printf 'hf_0123456789abcdef\n' >"$SEC/hf.token"
rd --as alice -c "key add hub --type huggingface --file $SEC/hf.token"
expect_status 0
secure_with alice bob node:n1
RIGDECK_ETCD_USER=root RIGDECK_ETCD_PASSWORD_FILE="$SEC/root.pw" start_serve s1 --sched-every 1s
RIGDECK_TRANSFER_LISTEN=127.0.0.1:0 RIGDECK_ETCD_USER=node:n1 RIGDECK_ETCD_PASSWORD_FILE="$SEC/node:n1.pw" \
    start_agent n1 --inventory $INV/a100x4.yaml

mkdir -p "$SEC/in" "$SEC/got"
echo "from alice's computer" >"$SEC/in/x.txt"
cat >"$SEC/loc.yaml" <<YAML
name: loc
type: inference
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers:
  count: 1
  commands:
    - |-
      : rdtest-worker-$$; cp "\$ML_DATA_PATH/x.txt" "\$ML_OUTPUT_PATH/y.txt"
data:
  input: {type: local, path: "$SEC/in"}
  output: {type: local, path: "$SEC/got"}
environment: {python: "3.9", framework: pytorch}
YAML
as alice --output json -c "job submit $SEC/loc.yaml"
expect_status 0
J=$(jget id)

case_ "the agent's report with the sealed token goes through the relay; alice's job send through job transfer"
wait_until 120 field_is "job show $J" workers.0.message "waiting for job send"
as bob -c "job send $J"
expect_status 1
expect_err_lines 1
as alice --output json -c "job send $J"
expect_status 0
expect_json sent.0.item data.input
wait_until 120 field_is "job show $J" workers.0.message "waiting for job receive"
as bob -c "job receive $J"
expect_status 1
expect_err_lines 1
as alice --output json -c "job receive $J"
expect_status 0
python3 - "$SEC/got/loc.zip" <<'PY' && pass || fail "the zip lacks what the command wrote"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    assert z.read("y.txt") == b"from alice's computer\n"
PY
wait_until 120 field_is "job show $J" state finished

finish
