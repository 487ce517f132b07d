#!/bin/sh
# Values outside the rules are refused, each with one line naming the field
# and the rule, and the store left as it was: payment modes (seed 000: only
# credits; Stripe is "coming soon"), market prices below the GPU's usage fee
# (billing.md), and an endpoint section on a job that is not an endpoint
# (job-spec.md: "endpoint jobs only").
. tests/batch/lib.sh
export RIGDECK_MASTER_KEY="$TMP/master.key"

openssl genrsa -out "$TMP/sa.pem" 2048 2>/dev/null
python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
key = {"type": "service_account", "project_id": "lab-project", "private_key_id": "abc",
       "private_key": open(d + "/sa.pem").read(), "client_email": "rd@lab-project.iam.gserviceaccount.com",
       "token_uri": "https://oauth2.googleapis.com/token"}
json.dump(key, open(d + "/sa.json", "w"))
PY

rd -c "account create alice --plan team"

case_ "rule: the only payment mode is credits"
before=$(snapshot)
rd --as alice -c "provider enable physical --payment bitcoin"
expect_refused 1 "$before" "\-\-payment must be credits (the only payment mode), got 'bitcoin'"
rd --as alice -c "provider enable gcp --key-file $TMP/sa.json --payment bitcoin"
expect_refused 1 "$before" "\-\-payment must be credits"
rd --as alice -c "provider enable physical --payment ''"
expect_refused 1 "$before" "\-\-payment must be credits"

case_ "rule: Stripe payouts are not available yet"
rd --as alice -c "provider enable physical --payment stripe"
expect_refused 1 "$before" "\-\-payment stripe is not available yet"
rd --as alice -c "provider enable gcp --key-file $TMP/sa.json --payment Stripe"
expect_refused 1 "$before" "\-\-payment stripe is not available yet"

case_ "credits, given or by default, is accepted"
rd --as alice --output json -c "provider enable physical --payment credits"
expect_status 0
expect_json payment credits
rd --as alice --output json -c "provider enable gcp --key-file $TMP/sa.json"
expect_status 0
expect_json payment credits

case_ "rule: a market price below the GPU's usage fee is refused"
before=$(snapshot)
rd -c "price set a100 0.1"
expect_refused 1 "$before" "PRICE must be at least the usage fee of a100 (datacenter GPUs: 0.25 credits per GPU-hour), got '0.1'"
rd -c "price set a100-80gb 0.249999"
expect_refused 1 "$before" "PRICE must be at least the usage fee of a100-80gb"
rd -c "price set rtx-a6000 0.05"
expect_refused 1 "$before" "usage fee of rtx-a6000 (professional GPUs: 0.10 credits per GPU-hour)"
rd -c "price set rtx3090 0.01"
expect_refused 1 "$before" "usage fee of rtx3090 (development GPUs: 0.05 credits per GPU-hour)"
rd -c "price set v100 0"
expect_refused 1 "$before" "PRICE must be an amount of credits"

case_ "a price equal to the usage fee is allowed (the host earns 0), above it too"
rd --output json -c "price set a100 0.25" -c "price set rtx3090 0.05" -c "price set cpu 0.000001"
expect_status 0
rd --output json -c "price list"
check_price () {
    got=$(python3 -c "import json,sys; d=json.load(sys.stdin); print({i['name']: i['price_ucr'] for i in d['items']}['$1'])" <"$OUT")
    if [ "$got" = "$2" ]; then pass; else fail "price of $1: expected $2, got $got"; fi
}
check_price a100 250000
check_price rtx3090 50000
check_price cpu 1

case_ "rule: an endpoint section is only for endpoint jobs"
ROUTES='endpoint:
  routes:
    - {verb: POST, path: /predict, file: serve.py, function: predict}'
cat >"$TMP/train.yaml" <<YAML
name: sweep
type: training
resources: {gpu_types: [a100], disk_size: 50}
workers: {count: 1, commands: ["python train.py"]}
$ROUTES
YAML
cat >"$TMP/infer.yaml" <<YAML
name: score
type: inference
resources: {gpu_types: [t4], disk_size: 50}
workers: {commands: ["python score.py"]}
endpoint: {start_command: "uvicorn app:app --port 80"}
YAML
cat >"$TMP/notebook.yaml" <<YAML
name: nb
type: notebook
resources: {gpu_types: [t4], disk_size: 50}
endpoint: {}
YAML
before=$(snapshot)
rd -c "job submit $TMP/train.yaml"
expect_refused 1 "$before" "endpoint is only for endpoint jobs, not training jobs"
rd -c "job submit $TMP/infer.yaml"
expect_refused 1 "$before" "endpoint is only for endpoint jobs, not inference jobs"
rd -c "job submit $TMP/notebook.yaml"
expect_refused 1 "$before" "endpoint is only for endpoint jobs, not notebook jobs"

case_ "the same section on an endpoint job is accepted; absent or null elsewhere is fine"
cat >"$TMP/serve.yaml" <<YAML
name: api
type: endpoint
resources: {gpu_types: [t4], disk_size: 50}
$ROUTES
YAML
sed -e '/^endpoint:/,$d' "$TMP/train.yaml" >"$TMP/train-plain.yaml"
printf 'endpoint: null\n' >>"$TMP/train-plain.yaml"
rd --output json -c "job submit $TMP/serve.yaml" -c "job submit $TMP/train-plain.yaml"
expect_status 0
expect_json type endpoint 0
expect_json type training 1

finish
