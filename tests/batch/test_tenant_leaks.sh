#!/bin/sh
# test_tenant_leaks.sh - what a refusal or a listing must not give away.
#
# A job spec refusal names the field and the rule, never the file's text
# (the file may be anyone's: docs/security.md); `job stop` of another
# tenant's job answers exactly as `job show` does; `alert rule list` shows
# a tenant only a webhook's host, never its path, query or user (where the
# tokens are).
# Prints "batch-summary: passed=N failed=M".
set -u
. tests/batch/lib.sh

case_ "two tenants with a job each, a rule with a webhook"
rd -c "account create alice" -c "account create bob" -c "account create ops --role operator" \
   -c "price set a100 2.78" -c "account deposit alice 100" -c "account deposit bob 100"
expect_status 0
cat >"$TMP/job.yaml" <<'EOF'
name: j
type: training
resources:
  gpu_types: [a100]
  gpu_count: 1
  max_price: 3
  disk_size: 50
workers:
  count: 1
  commands: ["true"]
environment:
  python: "3.9"
  framework: pytorch
EOF
rd --as bob --output json -c "job submit $TMP/job.yaml"
expect_status 0
BJ=$(jget id)
rd -c "alert rule add hot --metric gpu_temp_c --above 90 --webhook https://tok:S3CR3T-PW@hooks.example:8443/T0/S3CR3T-PATH?token=S3CR3T-Q"
expect_status 0

case_ "a job spec refusal never quotes the file"
printf 'root:$6$S3CR3T-HASH:19000:0:99999:7:::\n' >"$TMP/shadow"
S=$(snapshot)
rd --as alice -c "job submit $TMP/shadow"
expect_refused 1 "$S" "job spec\|key"
expect_no_out S3CR3T
if grep -q S3CR3T "$ERR"; then fail "the refusal quotes the file: $(cat "$ERR")"; else pass; fi
printf 'S3CR3T-LINE\n' >"$TMP/line"
rd --as alice -c "job submit $TMP/line"
expect_refused 1 "$S" "the job spec must be a mapping"
if grep -q S3CR3T "$ERR"; then fail "the refusal quotes the file: $(cat "$ERR")"; else pass; fi
printf 'name: S3CR3T-NAME\ntype: S3CR3T-TYPE\nresources: {gpu_types: [a100]}\n' >"$TMP/fields.yaml"
rd --as alice -c "job submit $TMP/fields.yaml"
expect_refused 1 "$S" "type must be one of notebook, training, inference, endpoint, got a string"
if grep -q S3CR3T "$ERR"; then fail "the refusal quotes the file: $(cat "$ERR")"; else pass; fi

case_ "job stop of another tenant's job answers as job show does"
rd --as alice -c "job show $BJ"
expect_status 1
show_err=$(cat "$ERR")
S=$(snapshot)
rd --as alice -c "job stop $BJ"
expect_refused 1 "$S" "job '$BJ' does not exist"
[ "$(cat "$ERR")" = "$show_err" ] && pass || fail "job stop says '$(cat "$ERR")', job show '$show_err'"
expect_no_out bob
if grep -q 'bob\|default' "$ERR"; then fail "names the owner or project: $(cat "$ERR")"; else pass; fi
rd --as alice -c "job stop job-00000000"
[ "$(cat "$ERR" | sed 's/job-00000000/ID/')" = "$(echo "$show_err" | sed "s/$BJ/ID/")" ] && pass ||
    fail "a missing job answers '$(cat "$ERR")'"
rd --as bob --output json -c "job stop $BJ"
expect_status 0

case_ "alert rule list: tenants see a webhook's host, staff the whole URL"
rd --as alice --output json -c "alert rule list"
expect_status 0
expect_no_out S3CR3T
expect_out '"webhook": *"https://hooks.example:8443"'
rd --as alice -c "alert rule list"
expect_no_out S3CR3T
rd --as ops --output json -c "alert rule list"
expect_out 'S3CR3T-PATH?token=S3CR3T-Q'
rd --output json -c "alert rule list"
expect_out 'tok:S3CR3T-PW@hooks.example'

finish
