#!/bin/sh
# Fleet scenarios: every rule of seed 000 about providers, regions, nodes,
# devices, datastores and reservations, each case named after its rule.
. tests/batch/lib.sh
INV=tests/inventories
export RIGDECK_MASTER_KEY="$TMP/master.key"

# A GCP service-account key made at test time.
openssl genrsa -out "$TMP/sa.pem" 2048 2>/dev/null
python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
pem = open(d + "/sa.pem").read()
key = {"type": "service_account", "project_id": "lab-project", "private_key_id": "abc",
       "private_key": pem, "client_email": "rigdeck@lab-project.iam.gserviceaccount.com",
       "token_uri": "https://oauth2.googleapis.com/token"}
json.dump(key, open(d + "/sa.json", "w"))
key["type"] = "authorized_user"
json.dump(key, open(d + "/user.json", "w"))
PY
openssl ecparam -name prime256v1 -genkey -noout -out "$TMP/ec.pem" 2>/dev/null
python3 -c "import json,sys; k=json.load(open(sys.argv[1]+'/sa.json')); k['private_key']=open(sys.argv[1]+'/ec.pem').read(); json.dump(k, open(sys.argv[1]+'/ec.json','w'))" "$TMP"
printf 's3cret-pass\n' >"$TMP/pw"

rd -c "account create alice --plan team" -c "account create bob --plan free" -c "account create carol --plan team"

case_ "rule: a region needs its provider enabled first"
before=$(snapshot)
rd --as alice -c "region create lab --provider physical --storage local"
expect_refused 1 "$before" "the physical provider is not enabled for account 'alice'"
rd --as alice --output json -c "provider enable physical"
expect_status 0
expect_json payment credits

case_ "rule: physical region names are DNS labels"
before=$(snapshot)
rd --as alice -c "region create Lab_1 --provider physical --storage local"
expect_refused 1 "$before" "region name must be a DNS label"
rd --as alice -c "region create lab --provider physical --storage tape"
expect_refused 1 "$before" "\-\-storage must be one of local, central"

case_ "rule: physical regions choose local or central storage and public jobs"
rd --as alice --output json -c "region create lab --provider physical --storage local --public"
expect_status 0
expect_json storage local
expect_json public true
rd --as alice --output json -c "region create core --provider physical --storage central"
expect_json public false
rd --as alice -c "region create lab --provider physical --storage local"
expect_status 1
expect_err "region 'lab' exists already"

case_ "rule: gcp provider key must be a service-account key with an RSA key"
before=$(snapshot)
rd --as alice -c "provider enable gcp --key-file $TMP/user.json"
expect_refused 1 "$before" "\"type\" must be \"service_account\""
rd --as alice -c "provider enable gcp --key-file $TMP/ec.json"
expect_refused 1 "$before" "RSA"
rd --as alice -c "provider enable gcp --key-file $TMP/nope.json"
expect_refused 1 "$before" "cannot open"
rd --as alice -c "provider enable gcp"
expect_refused 1 "$before" "key-file"

case_ "rule: the gcp key yields project id and email and is never shown or stored in clear"
rd --as alice --output json -c "provider enable gcp --key-file $TMP/sa.json"
expect_status 0
expect_json project_id lab-project
expect_json client_email rigdeck@lab-project.iam.gserviceaccount.com
expect_no_out "PRIVATE KEY"
expect_no_out "secret"
rd --as alice --output json -c "provider show gcp" -c "audit list"
expect_status 0
expect_no_out "PRIVATE KEY"
# store dump belongs to administering accounts: the whole store, as they see it
rd --output json -c "store dump"
expect_status 0
expect_out "/rigdeck/providers/alice/gcp"
expect_no_out "PRIVATE KEY"
if grep -a -q "PRIVATE KEY" "${STORE#sqlite:}" "${STORE#sqlite:}-wal" 2>/dev/null; then fail "key in clear in the store file"; else pass; fi
ls -l "$RIGDECK_MASTER_KEY" | grep -q '^-rw-------' && pass || fail "master key is not mode 0600"

case_ "rule: a wrong or missing master key gives a clear error, never garbage"
rd --as alice --output json -c "provider check gcp"
expect_status 0
expect_json key ok
RIGDECK_MASTER_KEY="$TMP/other.key" rd --as alice -c "provider check gcp"
expect_status 1
expect_err "does not exist"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/wrong.key"; chmod 600 "$TMP/wrong.key"
RIGDECK_MASTER_KEY="$TMP/wrong.key" rd --as alice -c "provider check gcp"
expect_status 1
expect_err "different master key"

case_ "rule: gcp regions only in the supported cloud regions"
before=$(snapshot)
rd --as alice -c "region create cloud --provider gcp --gcp-region mars-east1 --storage-class small"
expect_refused 1 "$before" "us-central1"
rd --as alice -c "region create cloud --provider gcp --gcp-region us-central1 --storage-class huge"
expect_refused 1 "$before" "\-\-storage-class must be one of"
rd --as alice -c "region create cloud --provider gcp --gcp-region us-central1 --storage-class small --idle-release 0m"
expect_refused 1 "$before" "\-\-idle-release must be a positive duration"

case_ "rule: creating a gcp region records its storage node"
rd --as alice --output json -c "region create cloud --provider gcp --gcp-region us-central1 --storage-class small --idle-release 15m"
expect_status 0
expect_json storage_node cloud-storage
expect_json idle_release_s 900
rd --output json -c "node show cloud-storage"
expect_json role storage
expect_json state provisioning
expect_json region cloud
rd --as alice -c "region create cloud2 --provider gcp --gcp-region us-central1 --storage-class small"
expect_status 1
expect_err "has GCP region us-central1 already"

case_ "rule: runnable jobs = min(gpus, cpus / per-type, local ssd / 375)"
# Seed 000: a V100 quota of 8 with no CPU or local SSD quota runs nothing.
rd --as alice --output json -c "quota set cloud NVIDIA_V100_GPUS 8" -c "quota show cloud"
expect_json runnable.v100 0
rd --as alice --output json -c "quota set cloud CPUS 1000" -c "quota show cloud"
expect_json runnable.v100 0
rd --as alice --output json -c "quota set cloud CPUS 0" -c "quota set cloud LOCAL_SSD_TOTAL_GB 100000" -c "quota show cloud"
expect_json runnable.v100 0
# Plenty of CPU and SSD but a V100 quota of 1 runs exactly 1.
rd --as alice --output json -c "quota set cloud CPUS 1000" -c "quota set cloud NVIDIA_V100_GPUS 1" -c "quota show cloud"
expect_json runnable.v100 1
# CPU bound: 24 CPUs / 8 per V100 = 3; / 12 per A100 = 2.  SSD bound: 750 / 375 = 2.
rd --as alice --output json -c "quota set cloud NVIDIA_V100_GPUS 8" -c "quota set cloud NVIDIA_A100_GPUS 8" -c "quota set cloud CPUS 24" -c "quota show cloud"
expect_json runnable.v100 3
expect_json runnable.a100 2
rd --as alice --output json -c "quota set cloud LOCAL_SSD_TOTAL_GB 750 --usage 0" -c "quota show cloud"
expect_json runnable.v100 2
# Usage counts against the limit.
rd --as alice --output json -c "quota set cloud CPUS 24 --usage 16" -c "quota show cloud"
expect_json runnable.v100 1
before=$(snapshot)
rd --as alice -c "quota set lab CPUS 10"
expect_refused 1 "$before" "physical region"
rd --as alice -c "quota set cloud cpus 10"
expect_refused 1 "$before" "quota metric must be"
rd --as alice -c "quota set cloud CPUS -3"
expect_refused 1 "$before" "LIMIT must be a whole number"
rd --as bob -c "quota set cloud CPUS 3"
expect_refused 1 "$before" "region 'cloud' does not exist"   # alice's private region: hidden, as if missing

case_ "rule: nodes failing hardware requirements are rejected with each unmet requirement"
rd --as alice --output json -c "node add lab mixed-01 --agent none --minion m-mixed --inventory $INV/mixed.yaml"
expect_status 0
expect_json state rejected
expect_json unmet.0.requirement gpu_same_model
rd --as alice --output json -c "node add lab priv-01 --agent none --minion m-priv --inventory $INV/private-only.yaml"
expect_json state rejected
rd --output json -c "node show priv-01"
out=$(jget unmet | python3 -c "import json,sys; print(' '.join(u['requirement'] for u in json.load(sys.stdin)))")
[ "$out" = "memory_gb pcie_lanes cpu_cores" ] && pass || fail "public-region unmet list: '$out'"
expect_json unmet.0.required 320
expect_json unmet.0.actual 256

case_ "rule: selling spare capacity adds requirements (a private region accepts the same machine)"
rd --as alice -c "region create priv --provider physical --storage local"
rd --as alice --output json -c "node add priv priv-02 --agent none --minion m-priv2 --inventory $INV/private-only.yaml"
expect_json state maintenance
expect_json unmet.len 0

case_ "region set: public jobs after creation, a GCP region's agent, image and idle release"
before=$(snapshot)
rd --as alice -c "region set priv --public on"
expect_refused 1 "$before" "region set --public on: node 'priv-02' does not meet what a region selling spare capacity requires: system memory"
rd --as alice --output json -c "region show cloud"
expect_json agent_mode required
expect_json image null
expect_json public false
rd --as alice --output json -c "region set cloud --public on --agent none --image projects/p1/global/images/family/rigdeck-node --idle-release 20m"
expect_status 0
expect_json public true
expect_json agent_mode none
expect_json image projects/p1/global/images/family/rigdeck-node
expect_json idle_release_s 1200
rd --as alice --output json -c "region show cloud"
expect_json agent_mode none
rd -c "audit list"
expect_out "region set cloud --public on --agent none"
before=$(snapshot)
rd --as alice -c "region set cloud --public maybe"
expect_refused 1 "$before" "\-\-public must be one of on, off, got 'maybe'"
rd --as alice -c "region set cloud --agent sometimes"
expect_refused 1 "$before" "\-\-agent must be one of none, required, got 'sometimes'"
rd --as alice -c "region set cloud --image ubuntu-latest"
expect_refused 1 "$before" "\-\-image must be \[projects/PROJECT/\]global/images/\[family/\]NAME"
rd --as alice -c "region set cloud --idle-release 0m"
expect_refused 1 "$before" "\-\-idle-release must be a positive duration"
rd --as alice -c "region set cloud --public on --agent maybe"
expect_refused 1 "$before" "\-\-agent must be one of"
rd --as alice -c "region set priv --idle-release 5m"
expect_refused 1 "$before" "region set: region 'priv' is physical: --idle-release is only for gcp regions"
rd --as alice -c "region set priv --agent none"
expect_refused 1 "$before" "a physical node's agent is node add/set --agent"
rd --as alice -c "region set priv --image projects/p1/global/images/x"
expect_refused 1 "$before" "region 'priv' is physical: --image is only for gcp regions"
rd --as bob -c "region set cloud --public off"
expect_refused 1 "$before" "region set: region 'cloud' belongs to account 'alice', not 'bob'"
rd --as bob -c "region set priv --public on"
expect_refused 1 "$before" "region 'priv' does not exist"   # alice's private region: hidden, as if missing
rd --as alice -c "region set cloud"
expect_refused 2 "$before" "give at least one of --public, --agent, --image, --idle-release"
rd --as alice -c "region create priv3 --provider physical --storage local --agent none"
expect_refused 1 "$before" "region create --provider physical: --agent is only for gcp regions"
rd --as alice -c "region create cloud9 --provider gcp --gcp-region us-east1 --storage-class small --image Bad"
expect_refused 1 "$before" "\-\-image must be"
rd --as alice --output json -c "region set cloud --public off --agent required"
expect_json public false
expect_json agent_mode required

case_ "rule: a passing compute node waits in maintenance until toggled active"
rd --as alice --output json -c "node add lab gpu-01 --agent none --minion m-01 --inventory $INV/a100x4.yaml"
expect_json state maintenance
expect_json gpu_type a100
expect_json gpu_count 4
expect_json gpus_used 0
rd --as alice --output json -c "node maintenance gpu-01 toggle"
expect_json state active
rd --as alice --output json -c "node maintenance gpu-01 toggle"
expect_json state maintenance
rd --as alice --output json -c "node maintenance gpu-01 off"
expect_json state active
rd --as alice --output json -c "node maintenance gpu-01 off"
expect_json state active

case_ "rule: rejected and provisioning nodes cannot be activated"
before=$(snapshot)
rd --as alice -c "node maintenance mixed-01 off"
expect_refused 1 "$before" "node 'mixed-01' is rejected"
rd --as alice -c "node add lab gpu-02 --agent none --minion m-02"
rd --output json -c "node show gpu-02"
expect_json state provisioning
before=$(snapshot)
rd --as alice -c "node maintenance gpu-02 on"
expect_refused 1 "$before" "waits for its inventory"

case_ "rule: the agent's inventory report moves a node out of provisioning or rejection"
rd --output json -c "node report gpu-02 --inventory $INV/rtx3090x2.yaml"
expect_json state maintenance
expect_json gpu_type rtx3090
rd --output json -c "node report mixed-01 --inventory $INV/a100x4.yaml"
expect_json state maintenance
expect_json unmet.len 0
before=$(snapshot)
printf 'gpus: []\ncpu_cores: 4\nmemory_gb: 8\nnvme: []\nnetwork_gbps: 1\nfans: 3\n' >"$TMP/unknown.yaml"
rd -c "node report gpu-02 --inventory $TMP/unknown.yaml"
expect_refused 1 "$before" "fans"

case_ "rule: minion ids and node names are unique"
before=$(snapshot)
rd --as alice -c "node add lab gpu-09 --agent none --minion m-01 --inventory $INV/a100x4.yaml"
expect_refused 1 "$before" "already used by node/gpu-01"
rd --as alice -c "node add lab gpu-01 --agent none --minion m-09"
expect_refused 1 "$before" "node 'gpu-01' exists already"
rd --as alice -c "node add lab gpu-09 --agent none --minion 'bad id'"
expect_refused 1 "$before" "\-\-minion must be"

case_ "rule: mining needs a mining wallet address on the account"
before=$(snapshot)
rd --as alice -c "node add lab miner-01 --agent none --minion m-miner --mining on --inventory $INV/a100x4.yaml"
expect_refused 1 "$before" "has no mining wallet address"
rd --as alice -c "account set alice --mining-wallet short"
expect_refused 1 "$before" "\-\-mining-wallet must be"
rd --as alice --output json -c "account set alice --mining-wallet 0x52908400098527886E0F7030069857D2E4169EE7"
expect_json mining_wallets.0 0x52908400098527886E0F7030069857D2E4169EE7
rd --as alice --output json -c "node add lab miner-01 --agent none --minion m-miner --mining on --inventory $INV/a100x4.yaml"
expect_json mining true
rd --as bob -c "account set alice --clear-mining-wallets"
expect_status 1
expect_err "may only change itself"

case_ "rule: only the region owner manages its nodes"
before=$(snapshot)
rd --as bob -c "node add lab bob-01 --agent none --minion m-bob"
expect_refused 1 "$before" "belongs to account 'alice'"   # lab is public: seen, not hers
rd --as bob -c "node maintenance gpu-01 on"
expect_refused 1 "$before" "belongs to account 'alice'"

case_ "rule: storage nodes need central storage mode"
before=$(snapshot)
rd --as alice -c "node add lab st-01 --agent none --minion m-st1 --role storage --inventory $INV/storage.yaml"
expect_refused 1 "$before" "uses local storage"

case_ "rule: a central region needs its storage node before compute nodes and devices"
before=$(snapshot)
rd --as alice -c "node add core c-01 --agent none --minion m-c1 --inventory $INV/a100x4.yaml"
expect_refused 1 "$before" "add its storage node before any compute node"
rd --as alice -c "device add core cam-01 --minion d-1 --model jetson-orin-nano"
expect_refused 1 "$before" "no storage node yet"
rd --as alice --output json -c "node add core st-01 --agent none --minion m-st1 --role storage --inventory $INV/storage.yaml"
expect_json state active
expect_json role storage
rd --as alice --output json -c "node add core c-01 --agent none --minion m-c1 --inventory $INV/a100x4.yaml"
expect_json state maintenance

case_ "rule: one storage node per region; node replace swaps it"
before=$(snapshot)
rd --as alice -c "node add core st-02 --agent none --minion m-st2 --role storage --inventory $INV/storage.yaml"
expect_refused 1 "$before" "only one per region"
rd --as alice -c "node replace c-01 --with st-02 --minion m-st2"
expect_refused 1 "$before" "only storage nodes are replaced"
rd --as alice --output json -c "node replace st-01 --with st-02 --minion m-st2 --inventory $INV/storage.yaml"
expect_json name st-02
expect_json state active
rd --output json -c "node show st-01"
expect_json state removed
rd --output json -c "region show core"
expect_json storage_node st-02
expect_json storage_nodes 1
before=$(snapshot)
rd --as alice -c "node remove st-02"
expect_refused 1 "$before" "relying on storage node"

case_ "rule: devices only in physical regions with central storage"
before=$(snapshot)
rd --as alice -c "device add lab cam-01 --minion d-1 --model jetson-orin-nano"
expect_refused 1 "$before" "local storage mode"
rd --as alice -c "device add cloud cam-01 --minion d-1 --model jetson-orin-nano"
expect_refused 1 "$before" "GCP region"
rd --as alice -c "device add core cam-01 --minion d-1 --model jetson-nano-9000"
expect_refused 1 "$before" "jetson-agx-xavier"

case_ "rule: a device is provisioning until ready, then active; it deploys one config"
rd --as alice --output json -c "device add core cam-01 --minion d-1 --model jetson-orin-nano"
expect_json state provisioning
expect_json deployment null
before=$(snapshot)
rd --as alice -c "device set-config cam-01 detect"
expect_refused 1 "$before" "device config 'detect' does not exist in region 'core'"
rd --as alice -c "device-config create core detect --image nvcr.io/acme/detect:1.0 --model yolo --command 'python run.py' --env MODE=fast --key aws --checkpoint yolo-ckpt"
expect_status 0
rd --as alice -c "device set-config cam-01 detect"
expect_status 0
before=$(snapshot)
rd --as alice -c "device deploy cam-01"
expect_refused 1 "$before" "must be active"
rd -c "device report cam-01 --status running"
expect_refused 1 "$before" "device 'cam-01' cannot be running: it is provisioning with nothing deployed"
rd -c "device report cam-01 --status ready"
rd --as alice --output json -c "device deploy cam-01"
expect_json deployment.state deploying
expect_json deployment.config detect
expect_json deployed_config detect
rd --now 2026-11-01T08:00:00Z --output json -c "device report cam-01 --status running"
expect_json deployment.state running
expect_json deployment.started_at 2026-11-01T08:00:00Z
expect_json last_deployed_at 2026-11-01T08:00:00Z

case_ "rule: device config names are unique within a region, reusable across regions"
before=$(snapshot)
rd --as alice -c "device-config create core detect --image img:1 --model m --command run"
expect_refused 1 "$before" "exists already in region 'core'"
rd --as alice -c "device-config create core bad --image 'img with space' --model m --command run"
expect_refused 1 "$before" "\-\-image must be"
rd --as alice -c "device-config create core bad --image img:1 --model m --command run --env 1X=2"
expect_refused 1 "$before" "\-\-env must be NAME=VALUE"
rd --as alice -c "node add core-b st-b --agent none --minion x --role storage" >/dev/null 2>&1
rd --as alice -c "region create core-b --provider physical --storage central"
rd --as alice --output json -c "device-config create core-b detect --image img:1 --model m --command run"
expect_status 0
expect_json region core-b

case_ "rule: regional resources need the team plan or higher"
rd --as bob -c "provider enable physical" -c "region create bobs --provider physical --storage local"
rd --as bob -c "node add bobs bob-01 --agent none --minion m-bob --inventory $INV/rtx3090x2.yaml"
before=$(snapshot)
rd --as bob -c "datastore add bobs share --type nfs --address nas.local --root /"
expect_refused 1 "$before" "team plan or higher"

case_ "rule: regional resources need a compute node or device in the region"
rd --as carol -c "provider enable physical" -c "region create empty --provider physical --storage local"
before=$(snapshot)
rd --as carol -c "reservation add empty web --hostname web.local --port 8080"
expect_refused 1 "$before" "no compute node or device"

case_ "rule: smb datastores take a username and a sealed password together (or neither: guests); nfs takes neither"
before=$(snapshot)
rd --as alice -c "datastore add lab nas --type smb --address nas.local --root /data --username lab"
expect_refused 1 "$before" "\-\-username U and --password-file F go together"
rd --as alice -c "datastore add lab nas --type smb --address nas.local --root /data --password-file $TMP/pw"
expect_refused 1 "$before" "\-\-username U and --password-file F go together"
rd --as alice -c "datastore add lab nas --type nfs --address nas.local --root /data --username u --password-file $TMP/pw"
expect_refused 1 "$before" "are for smb datastores"
rd --as alice -c "datastore add lab nas --type nfs --address nas.local --root data"
expect_refused 1 "$before" "\-\-root must be an absolute path"
rd --as alice --output json -c "datastore add lab nas --type smb --address nas.local --root /dir2 --username lab --password-file $TMP/pw"
expect_status 0
expect_no_out "s3cret"
expect_no_out "secret"
if grep -a -q "s3cret-pass" "${STORE#sqlite:}" "${STORE#sqlite:}-wal" 2>/dev/null; then fail "password in clear in the store"; else pass; fi
rd --output json -c "audit list --limit 1"
expect_out "password-file \*\*\*"
expect_no_out "$TMP/pw"

case_ "rule: datastore paths join the root and never escape it"
rd --output json -c "datastore resolve nas /subdir2"
expect_json path /dir2/subdir2
for bad in "/../dir1" "/subdir2/../../etc" "/%2e%2e/x" '/a\b' "/~root"; do
    rd --output json -c "datastore resolve nas '$bad'"
    expect_status 1
done

case_ "rule: reservations take a port 1-65535, unique per region"
before=$(snapshot)
rd --as alice -c "reservation add lab web --hostname web.local --port 0"
expect_refused 1 "$before" "\-\-port must be a whole number between 1 and 65535"
rd --as alice -c "reservation add lab web --hostname web.local --port 65536"
expect_refused 1 "$before" "between 1 and 65535"
rd --as alice -c "reservation add lab web --hostname 'bad host' --port 80"
expect_refused 1 "$before" "\-\-hostname must be a DNS name"
rd --as alice --output json -c "reservation add lab web --hostname web.local --port 8080"
expect_status 0
expect_json port 8080
before=$(snapshot)
rd --as alice -c "reservation add lab api --hostname api.local --port 8080"
expect_refused 1 "$before" "\-\-port 8080 is reserved already in region 'lab'"
rd --as alice --output json -c "reservation add core api --hostname api.local --port 8080"
expect_status 0

case_ "rule: a region is removed only when empty"
before=$(snapshot)
rd --as alice -c "region remove lab"
expect_refused 1 "$before" "still has"
rd --as alice --output json -c "region remove cloud"
expect_status 0
rd --output json -c "node show cloud-storage"
expect_json state removed

case_ "listing filters by region and state, in table and json"
rd --output json -c "node list --region lab --state maintenance"
names=$(jget items | python3 -c "import json,sys; print(','.join(n['name'] for n in json.load(sys.stdin)))")
[ "$names" = "gpu-02,miner-01,mixed-01" ] && pass || fail "node list --region lab --state maintenance: $names"
rd -c "node list --region lab"
expect_out "^NAME  *REGION  *ROLE  *STATE  *GPU_TYPE"
expect_out "^gpu-01  *lab  *compute  *active  *a100  *4  *0"
rd -c "node list --state sleeping"
expect_status 1
expect_err "\-\-state must be one of"

finish
