#!/bin/sh
# An account's data objects (execution.md §5, issue 32 item 1): keys of
# every type, datasets, checkpoints and models.  A key's file is checked
# for its type, sealed at rest (the raw store never holds it) and never
# shown (list, show, JSON, CSV, the audit trail); every bad input is one
# line naming the field and the rule, never the file's content, the store
# unchanged.  Owner and staff see an object, another tenant does not;
# remove is refused while a dataset or a live job uses it; job submit
# resolves every name a spec gives, naming the field path of a missing one.
# Runs on SQLite and, again, on etcd.
. tests/batch/lib.sh
export RIGDECK_MASTER_KEY="$TMP/master.key"

SECRET=wJalrXUtnFEMI-k7MDENG-bPxRfiCY   # key material that must never be seen
TOKEN=hf_Zq8sEcReTt0kEn4711
raw_values () {
    case $STORE in
    etcd://*) etcdctl --endpoints "http://${STORE#etcd://}" get --prefix /rigdeck/ ;;
    *) cat "${STORE#sqlite:}"* ;;
    esac
}
raw_has () { raw_values | grep -a -q -- "$1"; }
no_secret () { # no_secret WHAT: neither $OUT nor $ERR holds key material
    if grep -a -q -e "$SECRET" -e "$TOKEN" -e "PRIVATE KEY" -e "MIIE" "$OUT" "$ERR"; then
        fail "$1 shows key material"
    else pass; fi
}
F=$TMP/f
mkdir -p "$F"
printf 'AWS_ACCESS_KEY_ID=AKIDEXAMPLE\nAWS_SECRET_ACCESS_KEY=%s\n' "$SECRET" >"$F/aws.env"
printf '# wasabi\nAWS_ACCESS_KEY_ID=WASABIID\r\nAWS_SECRET_ACCESS_KEY=%s\r\n' "$SECRET" >"$F/wasabi.env"
printf '%s\n' "$TOKEN" >"$F/hf.token"
printf 'wandb0123456789abcdef%s\n' "$SECRET" >"$F/wandb.token"
printf 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=%s;EndpointSuffix=core.windows.net\n' "$SECRET" >"$F/azure.conn"
printf 'BlobEndpoint=https://acct.blob.core.windows.net;SharedAccessSignature=sv=2022&sig=%s\n' "$SECRET" >"$F/azure-sas.conn"
printf 'WANDB_PROJECT=sweep\n\n# a comment\nMY_TOKEN=%s\n' "$SECRET" >"$F/vars.env"
openssl genrsa -traditional -out "$F/git.pem" 2048 2>/dev/null || openssl genrsa -out "$F/git.pem" 2048 2>/dev/null
openssl genrsa -out "$F/sa.pem" 2048 2>/dev/null
python3 -c "
import json, sys
json.dump({'type': 'service_account', 'project_id': 'p1', 'private_key_id': 'k1', 'private_key': open(sys.argv[1]).read(),
           'client_email': 'sa@p1.iam.gserviceaccount.com'}, open(sys.argv[2], 'w'))" "$F/sa.pem" "$F/gcp.json"

rd -c "account create alice --plan team" -c "account create bob" -c "account create carl" \
   -c "account create ops" -c "account set ops --role operator" \
   -c "account deposit alice 100" -c "account deposit bob 100"
[ "$RC" = 0 ] || { echo "setup failed: $(cat "$ERR")"; echo "batch-summary: passed=0 failed=1"; exit 1; }

case_ "key add takes every type's file, and no output holds its value"
rd --as alice -c "key add s3k --type aws --file $F/aws.env" -c "key add wsb --type wasabi --file $F/wasabi.env" \
   -c "key add hf --type huggingface --file $F/hf.token" -c "key add wb --type wandb --file $F/wandb.token" \
   -c "key add az --type azure --file $F/azure.conn" -c "key add azsas --type azure --file $F/azure-sas.conn" \
   -c "key add vars --type env --file $F/vars.env" -c "key add deploy --type git --file $F/git.pem" \
   -c "key add gsa --type gcp --file $F/gcp.json"
expect_status 0
no_secret "key add"
rd --as bob -c "key add s3k --type aws --file $F/aws.env"
expect_status 0
for fmt in table json csv; do
    rd --as alice --output $fmt -c "key list" -c "key show s3k" -c "key show gsa" -c "key show deploy"
    expect_status 0
    no_secret "key list/show --output $fmt"
    expect_no_out "rdsec1"
    expect_no_out "secret"
done
rd --as alice --output json -c "key list"
check_keys=$(python3 -c "
import json, sys
items = json.load(sys.stdin)['items']
assert sorted(i['name'] for i in items) == ['az', 'azsas', 'deploy', 'gsa', 'hf', 's3k', 'vars', 'wb', 'wsb'], items
for i in items:
    assert set(i) == {'name', 'owner', 'type', 'created_at'}, i
    assert i['owner'] == 'alice', i
print('ok')" <"$OUT" 2>&1)
[ "$check_keys" = ok ] && pass || fail "key list items: $check_keys"

case_ "a key's value is sealed at rest and in no audit record"
if raw_has "$SECRET" || raw_has "$TOKEN"; then fail "the store holds a key's value in plain text"; else pass; fi
raw_has '"secret_value":"rdsec1:' && pass || fail "the store holds no sealed key"
rd --output json -c "audit list --limit 200" -c "store dump --prefix /rigdeck/keys/"
expect_status 0
no_secret "audit list and store dump"
expect_out "key add s3k"
expect_no_out "rdsec1"

case_ "bad key files are refused naming the line and the rule, never the content, the store unchanged"
printf 'AWS_ACCESS_KEY_ID=AKID\n' >"$F/b1"
printf 'AWS_ACCESS_KEY_ID=AKID\nAWS_SECRET_ACCESS_KEY=\n' >"$F/b2"
printf 'AWS_ACCESS_KEY_ID=AKID\nAWS_SECRET_ACCESS_KEY=%s\nOTHER=%s\n' "$SECRET" "$SECRET" >"$F/b3"
printf 'AWS_ACCESS_KEY_ID=AKID\nthis %s is no assignment\n' "$SECRET" >"$F/b4"
printf '%s\nsecond %s\n' "$TOKEN" "$TOKEN" >"$F/b5"
printf 'hf_with %s space\n' "$TOKEN" >"$F/b6"
printf 'AccountName=acct;Protocol=%s\n' "$SECRET" >"$F/b7"
printf 'ssh-ed25519 AAAAC3Nza%s user@host\n' "$SECRET" >"$F/b8"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$SECRET" >"$F/b9"
printf '{"type": "authorized_user", "private_key": "%s"}\n' "$SECRET" >"$F/b10"
printf '{"type": "service_account", %s\n' "$SECRET" >"$F/b11"
printf '1BAD=%s\n' "$SECRET" >"$F/b12"
printf 'A=1\nA=%s\n' "$SECRET" >"$F/b13"
printf '\n\n' >"$F/b14"
printf -- '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n%s\n-----END RSA PRIVATE KEY-----\n' "$SECRET" >"$F/b15"
before=$(snapshot)
while read -r type file msg; do
    rd --as alice -c "key add bad --type $type --file $F/$file"
    expect_refused 1 "$before" "$msg"
    no_secret "refusal of $file"
done <<'EOF'
aws b1 aws keys need an AWS_SECRET_ACCESS_KEY=... line
wasabi b2 line 2: the value is empty
aws b3 line 3: aws keys take only AWS_ACCESS_KEY_ID
aws b4 line 2: not a NAME=VALUE line
huggingface b5 line 2: the file must hold the token on one line only
wandb b6 line 1: the token holds a space or control character at column 8
azure b7 connection string with AccountName= and AccountKey=
git b8 line 1: this is a public key
git b9 no body or no matching END line
gcp b10 "type" must be "service_account"
gcp b11 not valid JSON at line
env b12 line 1: not a NAME=VALUE line
env b13 line 2: the variable of line 1 is set again
env b14 needs at least one NAME=VALUE line
git b15 line 2: the private key is encrypted
EOF
rd --as alice -c "key add bad --type ssh --file $F/aws.env"
expect_refused 1 "$before" "--type must be one of aws, gcp, azure, wasabi, git, huggingface, wandb, env"
rd --as alice -c "key add Bad --type aws --file $F/aws.env"
expect_refused 1 "$before" "key name must be 1-63 characters"
rd --as alice -c "key add s3k --type aws --file $F/aws.env"
expect_refused 1 "$before" "key 's3k' of account 'alice' exists already"
rd --as alice -c "key add nofile --type aws --file $F/missing"
expect_refused 1 "$before" "missing"

case_ "datasets, checkpoints and models from every kind of source"
rd --as alice -c "dataset add 'PASCAL VOC' --source s3://voc-bucket/voc2012/ --key s3k" \
   -c "dataset add coco --source s3://coco-bucket/2017 --key wsb --endpoint https://s3.us-east-1.wasabisys.com" \
   -c "dataset add minio --source s3://local-bucket/x --endpoint http://127.0.0.1:9000" \
   -c "dataset add gcs --source gs://gcs-bucket/data --key gsa" \
   -c "dataset add web --source http://example.com/data.tar.gz" \
   -c "dataset add ftp --source ftp://ftp.example.com/pub/data.zip" \
   -c "checkpoint add 'My Checkpoint' --source https://acct.blob.core.windows.net/c/ckpt.tar --key az" \
   -c "checkpoint add hub --source https://huggingface.co/org/model/resolve/main/w.bin --key hf" \
   -c "model add code --source https://github.com/org/repo.git" \
   -c "model add private --source git@github.com:org/private.git --key deploy" \
   -c "model add sshurl --source ssh://git@example.com/org/repo.git --key deploy" \
   -c "model add hfrepo --source https://huggingface.co/org/repo.git --key hf"
expect_status 0
rd --as alice --output json -c "dataset show coco" -c "model show private" -c "model show code" -c "dataset list"
expect_json source_type s3 0
expect_json key wsb 0
expect_json key_type wasabi 0
expect_json endpoint https://s3.us-east-1.wasabisys.com 0
expect_json source_type git 1
expect_json key_type git 1
expect_json source_type git 2
n=$(python3 -c "import json,sys; print(len(json.loads(sys.stdin.read().splitlines()[-1])['items']))" <"$OUT")
[ "$n" = 6 ] && pass || fail "dataset list: expected 6 datasets, got $n"
rd --as alice --output csv -c "model list"
expect_status 0
expect_out "alice,private,git,git@github.com:org/private.git,deploy"

case_ "help dataset/checkpoint/model add shows the source and key table"
for k in dataset checkpoint model; do
    rd -c "help $k add"
    expect_status 0
    expect_out "s3://BUCKET/PREFIX *aws, wasabi"
    expect_out "ssh://..., user@host:path *git"
done

case_ "a datastore source: it must exist and be the creator's to see, its path confined under the root"
rd --as alice -c "provider enable physical" -c "region create home --provider physical --storage local" \
   -c "node add home ws-01 --minion m-ws01 --inventory tests/inventories/rtx3090x2.yaml" \
   -c "datastore add home lab-nfs --type nfs --address nfs.home.local --root /srv/data"
if [ "$RC" = 0 ]; then
    rd --as alice --output json -c "dataset add imagenet --source datastore:lab-nfs/imagenet//train/"
    expect_status 0
    expect_json datastore lab-nfs
    expect_json region home
    expect_json path /imagenet/train
    expect_json server_path /srv/data/imagenet/train
    before=$(snapshot)
    rd --as alice -c "dataset add up --source datastore:lab-nfs/../etc"
    expect_refused 1 "$before" "--source: the path inside datastore 'lab-nfs' is not usable"
    rd --as bob -c "dataset add theirs --source datastore:lab-nfs/imagenet"
    expect_refused 1 "$before" "--source: datastore 'lab-nfs' does not exist"
else
    fail "setup of the datastore: $(cat "$ERR")"
fi

case_ "bad sources, keys and endpoints are refused with one line, the store unchanged"
before=$(snapshot)
while read -r msg; read -r line; do
    rd --as alice -c "$line"
    expect_refused 1 "$before" "$msg"
done <<'EOF'
--source must be an s3://, gs://, https://
dataset add x --source /local/path
--source: scheme 'rsync' is not a source
dataset add x --source rsync://host.example.com/x
--source: names no host
dataset add x --source file:///etc/passwd
--source: a user name or password in the URL is not allowed
dataset add x --source https://user:pw@example.com/x
--source: spaces and control characters are not allowed
dataset add x --source 'https://example.com/a b'
--source: names no host
dataset add x --source https:///x
--source: the bucket of an s3:// URL is 3-222 characters
dataset add x --source s3://ab/x
--source: 's3://Bad_Bucket!/x' is not a URL
dataset add x --source s3://Bad_Bucket!/x
--source: a user name or password in the URL is not allowed
model add x --source ssh://git:pw@example.com/org/repo.git --key deploy
--key: key 'gsa' is of type gcp; s3 sources take a key of type aws or wasabi
dataset add x --source s3://voc-bucket/x --key gsa
--key: key 's3k' is of type aws; gs sources take a key of type gcp
checkpoint add x --source gs://gcs-bucket/x --key s3k
--key: key 'hf' is of type huggingface; http sources take a key of type none
model add x --source http://example.com/m.tar --key hf
--key: key 'deploy' is of type git; git sources take a key of type huggingface
model add x --source https://github.com/org/repo.git --key deploy
--key: key 'vars' is of type env; git sources take a key of type git
model add x --source git@github.com:org/repo.git --key vars
--key: account 'alice' has no key 'nokey'
dataset add x --source s3://voc-bucket/x --key nokey
--endpoint is required with a wasabi key
dataset add x --source s3://voc-bucket/x --key wsb
--endpoint is only for s3:// sources
dataset add x --source https://example.com/x --endpoint https://s3.example.com
--endpoint must be an http:// or https:// service URL
dataset add x --source s3://voc-bucket/x --endpoint ftp://s3.example.com
--endpoint: a user name or password in the URL is not allowed
dataset add x --source s3://voc-bucket/x --endpoint https://id:pw@s3.example.com
dataset 'PASCAL VOC' of account 'alice' exists already
dataset add 'PASCAL VOC' --source https://example.com/x
dataset name must be 1-128 characters without '/'
dataset add a/b --source https://example.com/x
dataset name must be 1-128 characters without '/'
dataset add ' lead' --source https://example.com/x
checkpoint name must be 1-128 characters
checkpoint add .. --source https://example.com/x
EOF
# another account's key is not one to fetch with, whoever may see it
rd -c "dataset add x --source s3://voc-bucket/x --key alice/s3k"
expect_refused 1 "$before" "--key must be 1-63 characters"

case_ "each account sees its own objects; staff see all; another tenant's are missing"
rd --as bob --output json -c "key list" -c "dataset list" -c "model list"
expect_status 0
python3 -c "
import json, sys
docs = [json.loads(l) for l in sys.stdin.read().splitlines()]
assert [i['owner'] for i in docs[0]['items']] == ['bob'], docs[0]
assert docs[1]['items'] == [] and docs[2]['items'] == [], docs" <"$OUT" && pass || fail "bob sees another's objects"
before=$(snapshot)
rd --as bob -c "key show alice/s3k"
expect_refused 1 "$before" "key 'alice/s3k' does not exist"
rd --as bob -c "dataset show 'alice/PASCAL VOC'"
expect_refused 1 "$before" "dataset 'alice/PASCAL VOC' does not exist"
rd --as bob -c "model remove alice/code"
expect_refused 1 "$before" "model 'alice/code' does not exist"
rd --as ops --output json -c "key list" -c "dataset show 'alice/PASCAL VOC'" -c "key show alice/gsa"
expect_status 0
no_secret "the operator's view"
python3 -c "
import json, sys
docs = [json.loads(l) for l in sys.stdin.read().splitlines()]
assert sorted({i['owner'] for i in docs[0]['items']}) == ['alice', 'bob'], docs[0]
assert docs[1]['key'] == 's3k' and docs[2]['type'] == 'gcp', docs" <"$OUT" && pass || fail "the operator does not see every account's"
rd --as ops --output json -c "key list --owner bob"
expect_json items.0.owner bob
rd --as ops -c "key remove alice/wb"
expect_refused 1 "$before" "ops"
rd --as carl -c "key list"
expect_status 0
expect_no_out "s3k"

case_ "remove is refused while a dataset or an account's artifacts fetch with the key"
before=$(snapshot)
rd --as alice -c "key remove s3k"
expect_refused 1 "$before" "key remove: dataset 'PASCAL VOC' fetches with key 's3k'; remove it first"
rd --as alice -c "key remove deploy"
expect_refused 1 "$before" "key remove: model '.*' fetches with key 'deploy'"

case_ "account set --artifacts: a location results can be stored at, with the account's own key"
rd --as alice --output json -c "account set alice --artifacts s3://art-bucket/rigdeck --artifacts-key s3k"
expect_status 0
expect_json artifacts.source s3://art-bucket/rigdeck
expect_json artifacts.key_type aws
before=$(snapshot)
rd --as alice -c "account set alice --artifacts http://example.com/up"
expect_refused 1 "$before" "--artifacts must be a place results can be stored"
rd --as alice -c "account set alice --artifacts gs://art-bucket/x --artifacts-key s3k"
expect_refused 1 "$before" "--artifacts-key: key 's3k' is of type aws; gs sources take a key of type gcp"
rd --as alice -c "account set alice --artifacts-key s3k"
expect_refused 2 "$before" "--artifacts-key and --artifacts-endpoint go with --artifacts URL"
rd --as bob -c "account set alice --artifacts s3://art-bucket/x"
expect_refused 1 "$before" "may only change itself"
rd --as alice -c "dataset remove 'PASCAL VOC'" -c "key remove s3k"
expect_status 1
expect_err "account 'alice' stores its artifacts with key 's3k'"
rd --as alice -c "dataset add 'PASCAL VOC' --source s3://voc-bucket/voc2012/ --key s3k"
expect_status 0

case_ "job submit resolves every name in the creator's account, naming the field path of a missing one"
cat >"$F/job.yaml" <<'EOF'
name: train-voc
type: training
resources: {gpu_types: [a100], max_price: 3, disk_size: 10}
data: {datasets: ["PASCAL VOC", coco]}
model: {source: rigdeck, location: private, checkpoints: ["My Checkpoint"]}
workers: {commands: ["python train.py"]}
environment: {keys: [wb, vars]}
EOF
before=$(snapshot)
sed 's/coco\]/cocoa]/' "$F/job.yaml" >"$F/j1.yaml"
rd --as alice -c "job submit $F/j1.yaml"
expect_refused 1 "$before" "data.datasets\[1\]: dataset 'cocoa' does not exist"
sed 's/"My Checkpoint"/"My Ckpt"/' "$F/job.yaml" >"$F/j2.yaml"
rd --as alice -c "job submit $F/j2.yaml"
expect_refused 1 "$before" "model.checkpoints\[0\]: checkpoint 'My Ckpt' does not exist"
sed 's/location: private/location: gone/' "$F/job.yaml" >"$F/j3.yaml"
rd --as alice -c "job submit $F/j3.yaml"
expect_refused 1 "$before" "model.location: model 'gone' does not exist"
sed 's/keys: \[wb, vars\]/keys: [wb, aws]/' "$F/job.yaml" >"$F/j4.yaml"
rd --as alice -c "job submit $F/j4.yaml"
expect_refused 1 "$before" "environment.keys\[1\]: key 'aws' does not exist"
# bob sees none of alice's: the same spec names nothing of his
rd --as bob -c "job submit $F/job.yaml"
expect_refused 1 "$before" "data.datasets\[0\]: dataset 'PASCAL VOC' does not exist (account 'bob' has none"
rd --as alice --output json -c "job submit $F/job.yaml"
expect_status 0
JOB=$(jget id)
no_secret "the submitted job"
python3 -c "
import json, sys
r = json.load(sys.stdin)['data_refs']
assert [d['name'] for d in r['datasets']] == ['PASCAL VOC', 'coco'], r
assert r['datasets'][0]['source'] == 's3://voc-bucket/voc2012/' and r['datasets'][0]['key_type'] == 'aws', r
assert r['datasets'][1]['endpoint'] == 'https://s3.us-east-1.wasabisys.com', r
assert r['checkpoints'][0]['source_type'] == 'https' and r['checkpoints'][0]['key'] == 'az', r
assert r['model']['name'] == 'private' and r['model']['key'] == 'deploy', r
assert r['keys'] == [{'owner': 'alice', 'name': 'wb', 'type': 'wandb'}, {'owner': 'alice', 'name': 'vars', 'type': 'env'}], r
print('ok')" <"$OUT" >"$TMP/refs" 2>&1
[ "$(cat "$TMP/refs")" = ok ] && pass || fail "data_refs: $(cat "$TMP/refs")"
if raw_has "$SECRET"; then fail "the job put a key's value in the store"; else pass; fi

case_ "remove is refused while a waiting job refers to the object, naming the job"
before=$(snapshot)
for line in "dataset remove coco" "checkpoint remove 'My Checkpoint'" "model remove private" "key remove vars"; do
    rd --as alice -c "$line"
    expect_refused 1 "$before" "job $JOB (waiting_gpus) refers to"
done
# a key the job fetches a checkpoint with is in use too (after its checkpoint is gone from the account)
rd --as alice -c "dataset remove web" -c "model remove code"
expect_status 0
rd --as alice -c "job stop $JOB"
expect_status 0
rd --as alice -c "dataset remove coco" -c "checkpoint remove 'My Checkpoint'" -c "model remove private" \
   -c "key remove vars" -c "key remove az"
expect_status 0
rd --as alice --output json -c "checkpoint list"
expect_no_out "My Checkpoint"

case_ "an admin removes another account's object by OWNER/NAME"
rd --output json -c "key remove bob/s3k"
expect_status 0
expect_json owner bob
expect_json name s3k
rd --as bob -c "key list"
expect_no_out "s3k"

case_ "account remove is refused while the account has data objects, naming them"
rd --as carl -c "key add ck --type wandb --file $F/wandb.token" -c "model add carlm --source https://e.com/m.tar"
expect_status 0
before=$(snapshot)
rd -c "account remove carl"
expect_refused 1 "$before" "still has 1 key (ck) and 1 model (carlm)"
rd --as carl -c "model remove carlm" -c "key remove ck"
rd -c "account remove carl"
expect_status 0

finish
