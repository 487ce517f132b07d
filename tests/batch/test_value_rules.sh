#!/bin/sh
# Values outside the rules are refused, each with one line naming the field
# and the rule, and the store left as it was: payment modes (seed 000: only
# credits; Stripe is "coming soon").
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

finish
