#!/bin/sh
# Staging from FTP, and the keys a worker is handed (execution.md §5): a
# real FTP server, Debian's python3-pyftpdlib (anonymous, read-only, on
# 127.0.0.1), serves two datasets: an archive (ftp://.../data.tar.gz,
# fetched by libcurl and extracted) and a folder (ftp://.../pub/set/, copied
# whole by rclone's ftp backend: an on-the-fly remote, host, port and the
# anonymous login in RCLONE_FTP_* variables, the password obscured, nothing
# on the command line).  A real agent on the process runtime stages them
# into /opt/ml/input/<NAME> and the command lists them; a folder and a file
# that are not on the server fail `staging_failed` naming the dataset.
# Then a job attaching keys of type azure, gcp, huggingface and wandb sees
# AZURE_STORAGE_CONNECTION_STRING, GOOGLE_APPLICATION_CREDENTIALS (a 0600
# file holding the service-account JSON), HF_TOKEN and WANDB_API_KEY, and
# an inference job's azure data.input is fetched with the azure key.
# Runs on SQLite and, with RIGDECK_TEST_STORE_URL, on etcd (the azure
# case on SQLite only).  Skips, saying
# why, where pyftpdlib or rclone is missing.
. tests/batch/lib.sh
. tests/batch/daemons.sh

command -v rclone >/dev/null 2>&1 || skip "rclone is not installed (Debian: apt-get install rclone)"
# Debian's module lives under /usr/bin/python3, which another python3
# earlier on PATH (pyenv) may not see
FTPPY=""
for p in /usr/bin/python3 python3; do
    if "$p" -c "import pyftpdlib" >/dev/null 2>&1; then FTPPY=$p; break; fi
done
[ -n "$FTPPY" ] || skip "pyftpdlib is not installed (Debian: apt-get install python3-pyftpdlib)"

F=$TMP/ftproot
mkdir -p "$F/pub/set/deep" "$TMP/arch/a"
echo "from an archive" >"$TMP/arch/a/one.txt"
tar -C "$TMP/arch" -czf "$F/data.tar.gz" a
echo "f1" >"$F/pub/set/f1.txt"
echo "f2" >"$F/pub/set/deep/f2.txt"
"$FTPPY" -m pyftpdlib -i 127.0.0.1 -p 0 -d "$F" >"$TMP/ftp.log" 2>&1 &
DAEMONS="$DAEMONS $!"
FPORT=""
end=$(($(date +%s) + 60))
while [ -z "$FPORT" ] && [ "$(date +%s)" -le "$end" ]; do
    FPORT=$(sed -n 's/.*starting FTP server on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/ftp.log")
    [ -n "$FPORT" ] || sleep 0.2
done
[ -n "$FPORT" ] || { echo "the FTP server did not start: $(cat "$TMP/ftp.log")" >&2; exit 1; }
U=ftp://127.0.0.1:$FPORT

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "dataset add ftparch --source $U/data.tar.gz" -c "dataset add 'FTP Set' --source $U/pub/set/" \
   -c "dataset add ftpnodir --source $U/pub/nothing-here/" -c "dataset add ftpnofile --source $U/missing.tar.gz"
expect_status 0

# ftp_job NAME DATASETS COMMAND [KEYS]
ftp_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers:
  count: 1
  commands:
    - |-
      : rdtest-worker-$$; $3
data: {datasets: $2}
environment: {python: "3.9", framework: pytorch, keys: [${4:-}]}
EOF
    J=$(submit "$1")
}

start_serve s1 --sched-every 1s
start_agent n1 --inventory $INV/a100x4.yaml

case_ "two FTP datasets: an archive extracted (libcurl), a folder copied whole (rclone's ftp backend)"
ftp_job ftp '[ftparch, "FTP Set"]' 'cd "$ML_DATA_PATH" && find . -type f | sort'
wait_json 300 "job show $J" state finished
rd --output json -c "job show $J"
expect_json workers.0.exit_code 0
rd -c "job logs $J"
expect_out "^./ftparch/a/one.txt$"
expect_out "^./FTP_Set/f1.txt$"
expect_out "^./FTP_Set/deep/f2.txt$"
expect_no_out "data.tar.gz"
grep -q "RETR $F/pub/set/deep/f2.txt" "$TMP/ftp.log" && pass || fail "the folder was not fetched over FTP"
grep -q "USER .anonymous. logged in" "$TMP/ftp.log" && pass || fail "the FTP server saw no anonymous login"

case_ "an FTP folder or file that is not there: staging_failed naming the dataset, never started"
ftp_job nodir '[ftpnodir]' 'echo command-ran'
wait_json 300 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason staging_failed
expect_json workers.0.started_at null
msg=$(jget workers.0.message)
case $msg in "dataset 'ftpnodir': "?*) pass ;; *) fail "message '$msg' does not name the dataset" ;; esac
ftp_job nofile '[ftpnofile]' 'echo command-ran'
wait_json 300 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason staging_failed
msg=$(jget workers.0.message)
case $msg in "dataset 'ftpnofile': "?*) pass ;; *) fail "message '$msg' does not name the dataset" ;; esac

case_ "keys of type azure, gcp, huggingface and wandb: the worker's variables (the gcp key a 0600 file)"
printf 'DefaultEndpointsProtocol=https;AccountName=acct1;AccountKey=a2V5;EndpointSuffix=core.windows.net\n' >"$TMP/az.txt"
openssl genrsa -out "$TMP/sa.pem" 2048 2>/dev/null
python3 -c "import json,sys; json.dump({'type':'service_account','project_id':'p1','private_key':open(sys.argv[1]+'/sa.pem').read(),'client_email':'sa@p1.iam.gserviceaccount.com'}, open(sys.argv[1]+'/sa.json','w'))" "$TMP"
echo "hf_token_123" >"$TMP/hf.txt"
echo "wandb_key_456" >"$TMP/wb.txt"
rd -c "key add az --type azure --file $TMP/az.txt" -c "key add sa --type gcp --file $TMP/sa.json" \
   -c "key add hf --type huggingface --file $TMP/hf.txt" -c "key add wb --type wandb --file $TMP/wb.txt"
expect_status 0
ftp_job keys '[]' 'echo "az=$AZURE_STORAGE_CONNECTION_STRING"; echo "hf=$HF_TOKEN wb=$WANDB_API_KEY"; stat -c "mode=%a" "$GOOGLE_APPLICATION_CREDENTIALS"; python3 -c "import json,sys; print(\"email=\" + json.load(open(sys.argv[1]))[\"client_email\"])" "$GOOGLE_APPLICATION_CREDENTIALS"' "az, sa, hf, wb"
wait_json 300 "job show $J" state finished
rd -c "job logs $J"
expect_out "^az=DefaultEndpointsProtocol=https;AccountName=acct1;AccountKey=a2V5;EndpointSuffix=core.windows.net$"
expect_out "^hf=hf_token_123 wb=wandb_key_456$"
expect_out "^mode=600$"
expect_out "^email=sa@p1.iam.gserviceaccount.com$"

if [ -n "${RIGDECK_TEST_STORE_URL:-}" ]; then
    # What follows is the agent's rclone call alone, the same on either
    # store; the Azure SDK retries a host that does not resolve for about
    # 45 s, so it runs on the SQLite pass only.
    finish
    exit $?
fi

case_ "an inference job's data.input of type azure is fetched, with the attached azure key (rclone's azureblob)"
# No Azure account answers here: an account name that does not exist makes
# the fetch fail, by rclone (with the key: "no such host"), not libcurl
# ("Could not resolve host", anonymous); before, an azure input was never
# fetched at all and the command ran without it.
cat >"$TMP/azin.yaml" <<EOF
name: azin
type: inference
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers: {count: 1, commands: [": rdtest-worker-$$; echo command-ran"]}
data: {input: {type: azure, path: "https://rdtestnoacct1.blob.core.windows.net/c/x.zip"}}
environment: {python: "3.9", framework: pytorch, keys: [az]}
EOF
J=$(submit azin)
wait_json 300 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason staging_failed
expect_json workers.0.started_at null
msg=$(jget workers.0.message)
case $msg in "data.input: "*rdtestnoacct1.blob.core.windows.net*) pass ;; *) fail "message '$msg'" ;; esac
case $msg in *"Could not resolve host"*) fail "fetched anonymously by libcurl, not with the key: '$msg'" ;; *) pass ;; esac

finish
