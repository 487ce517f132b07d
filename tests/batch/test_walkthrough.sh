#!/bin/sh
# A realistic fleet built purely through batch commands (the demo fleet of
# `make run`), then the final `node list --output json` checked node by node.
. tests/batch/lib.sh
export RIGDECK_MASTER_KEY="$TMP/master.key"

case_ "the demo fleet builds from its batch file"
rd -f scripts/demo-fleet.txt
expect_status 0

case_ "node list shows every node with its state, gpu type and counts"
rd --output json -c "node list"
jget items | python3 -c '
import json, sys
got = {n["name"]: (n["region"], n["role"], n["state"], n["gpu_type"], n["gpu_count"], n["gpus_used"], len(n["unmet"]))
       for n in json.load(sys.stdin)}
want = {
    "gpu-01": ("dc-east", "compute", "active", "a100", 4, 0, 0),
    "gpu-02": ("dc-east", "compute", "active", "a100", 4, 0, 0),
    "ws-01": ("dc-east", "compute", "maintenance", "rtx3090", 2, 0, 0),
    "odd-01": ("dc-east", "compute", "rejected", None, 4, 0, 1),
    "new-01": ("dc-east", "compute", "provisioning", None, 0, 0, 0),
    "lab-storage": ("lab", "storage", "active", None, 0, 0, 0),
    "lab-01": ("lab", "compute", "active", "a100", 4, 0, 0),
}
bad = [f"{k}: want {want.get(k)}, got {got.get(k)}" for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)]
print("\n".join(bad))
sys.exit(1 if bad else 0)
' >"$TMP/diff" 2>&1 && pass || fail "node list differs: $(cat "$TMP/diff")"

case_ "regions, devices and resources are as built"
rd --output json -c "region show dc-east"
expect_json compute_nodes 5
expect_json public true
rd --output json -c "device show cam-01"
expect_json deployment.state running
expect_json deployed_config detect
rd --output json -c "device-config list --region lab"
expect_json items.0.datastore_path /cameras
rd --output json -c "datastore resolve nas /cameras/front"
expect_json path /exports/ml/cameras/front

finish
