#!/bin/sh
# test_secure_upload.sh - a worker's output on a secured store (execution.md
# §5, "After the command"; docs/security.md).
#
# One etcd member, secured; alice submits jobs to a node of the platform's
# public region, whose agent logs in as node:n1 and reaches the store only
# through its work view and the request relay.  Its reports `uploading` and
# `finished --register` go through the relay: the zip lands in a real
# S3-compatible server (s3rver on 127.0.0.1) and type rigdeck registers a
# dataset for alice, named after the job, at her artifacts location, though
# the agent acts for the node's owner.  alice may not report her worker
# uploading herself on a node an agent runs, and node:n1's etcd user can
# neither read nor write the datasets.
# Prints "batch-summary: passed=N failed=M" like the batch scenarios.
set -u
. tests/etcd/secure.sh
E=$ETCD_ENDPOINTS
. tests/batch/s3rver.sh

case_ "a public region's node, alice with artifacts in the S3-compatible store, then the store secured"
rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0
printf 'AWS_ACCESS_KEY_ID=S3RVER\nAWS_SECRET_ACCESS_KEY=S3RVER\n' >"$SEC/s3.env"
printf 'AWS_ACCESS_KEY_ID=NOBODY-KNOWN\nAWS_SECRET_ACCESS_KEY=not-the-secret\n' >"$SEC/bad.env"
rd --as alice -c "key add s3 --type wasabi --file $SEC/s3.env" -c "key add bad --type wasabi --file $SEC/bad.env" \
   -c "account set alice --artifacts s3://results/art --artifacts-key s3 --artifacts-endpoint $EP"
expect_status 0
secure_with alice node:n1
RIGDECK_ETCD_USER=root RIGDECK_ETCD_PASSWORD_FILE="$SEC/root.pw" start_serve s1 --sched-every 1s
RIGDECK_ETCD_USER=node:n1 RIGDECK_ETCD_PASSWORD_FILE="$SEC/node:n1.pw" start_agent n1 --inventory $INV/a100x4.yaml

# out_job NAME OUTPUT [KEYS]: a job writing two files, uploading as OUTPUT
# says with the keys KEYS attached (environment.keys).
out_job () {
    cat >"$SEC/$1.yaml" <<YAML
name: $1
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
data:
  output: $2
workers:
  count: 1
  commands:
    - |-
      : rdtest-worker-$$; cd "\$ML_OUTPUT_PATH" && echo hello.txt >hello.txt && mkdir sub && echo deep.txt >sub/deep.txt
environment: {python: "3.9", framework: pytorch, keys: [${3:-}]}
YAML
    as alice --output json -c "job submit $SEC/$1.yaml"
    J=$(jget id)
}

case_ "an output to the S3-compatible store with an attached key, opened from the job's sealed copy"
out_job plain "{type: wasabi, path: \"s3://results/plain\", endpoint: \"$EP\"}" s3
wait_until 120 field_is "job show $J" state finished
as_json root "job show $J" >"$OUT"
expect_json workers.0.reason ""
zip_has plain/plain.zip hello.txt sub/deep.txt

case_ "a key the store does not know: refused (the upload used the key), upload_failed"
out_job wrong "{type: wasabi, path: \"s3://results/wrong\", endpoint: \"$EP\"}" bad
wait_until 120 field_is "job show $J" state failed
as_json root "job show $J" >"$OUT"
expect_json workers.0.reason upload_failed
msg=$(jget workers.0.message)
case $msg in *InvalidAccessKeyId*|*Forbidden*) pass ;; *) fail "message '$msg' is not the store's refusal of the key" ;; esac
grep -q "not-the-secret" "$TMP/agent-n1.log" && fail "the agent's log holds the key" || pass

case_ "type rigdeck: uploaded with the artifacts key; the agent's --register makes alice's dataset"
out_job sweep "{type: rigdeck, path: dataset}"
wait_until 120 field_is "job show $J" state finished
zip_has "art/$J/sweep.zip" hello.txt sub/deep.txt
as alice --output json -c "dataset show sweep"
expect_status 0
expect_json owner alice
expect_json source "s3://results/art/$J/sweep.zip"
grep -q "$J/0: output uploaded" "$TMP/agent-n1.log" && pass || fail "the agent's log lacks the upload"

case_ "alice may not say her worker uploads on a node an agent runs; node:n1 cannot touch the datasets"
as alice -c "job report $J uploading --worker 0"
expect_status 1
expect_err "which an agent runs: only that agent"
etcdctl --endpoints "$E" --user node:n1 --password "$(cat "$SEC/node:n1.pw")" get /rigdeck/datasets/ --prefix \
    >"$OUT" 2>"$ERR"
[ $? != 0 ] && grep -q "permission denied" "$ERR" && pass || fail "node:n1 reads the datasets"
etcdctl --endpoints "$E" --user node:n1 --password "$(cat "$SEC/node:n1.pw")" put /rigdeck/datasets/alice/x '{}' \
    >"$OUT" 2>"$ERR"
[ $? != 0 ] && grep -q "permission denied" "$ERR" && pass || fail "node:n1 writes the datasets"

finish
