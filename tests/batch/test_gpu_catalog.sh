#!/bin/sh
# The GPU catalog belongs to the operator (execution.md §1): the shipped
# modern types and gpu list's fields, an inventory naming its GPUs as
# nvidia-smi does, gpu add/set/remove and every refusal (one line, exit 1,
# store unchanged), and an added type that takes prices, job specs,
# placement and billing at its class's fee, refused removal while in use.
. tests/batch/lib.sh
INV=tests/inventories
check () { if [ "$2" = "$3" ]; then pass; else fail "$1: expected $3, got $2"; fi; }
bal () { rd --output json -c "ledger balance $1"; jget balance_ucr; }

rd -c "account create alice --plan team" -c "account deposit alice 100" \
   -c "provider enable physical" -c "region create dc --provider physical --storage local --public"
expect_status 0

case_ "gpu list: the thirteen keep their figures, the modern types are shipped with names and fees"
rd --output json -c "gpu list"
expect_status 0
python3 - "$OUT" <<'PY' && pass || fail "gpu list items"
import json, sys
items = {i["id"]: i for i in json.load(open(sys.argv[1]))["items"]}
need = ["h100", "h100-nvl", "h200", "b200", "gh200", "l40s", "l40", "l4", "a10g", "a10", "a30", "a40",
        "rtx-a5000", "rtx-6000-ada", "rtx4090", "rtx4080", "rtx3080"]
seed = {"gtx1060": (6, 4.5, 0.9), "rtx2060s": (8, 7.1, 15), "rtx2070s": (8, 9, 18.5), "rtx2080ti": (11, 13.5, 25),
        "rtx3090": (24, 35.5, 39), "rtx-a4000": (16, 9.7, 19), "rtx-a6000": (48, 36, 40), "t4": (16, 7.5, 15.5),
        "p100": (16, 8, 16), "v100": (16, 15, 25.5), "a100": (40, 39, 62.5), "a100-80gb": (80, 39, 62.5), "cpu": (0, 0, 0)}
fee = {"development": 50000, "professional": 100000, "datacenter": 250000}
for k, (m, f32, f16) in seed.items():
    i = items[k]
    assert (i["memory_gb"], i["fp32_tflops"], i["fp16_tflops"]) == (m, f32, f16), i
for k in need:
    i = items[k]
    for f in ("id", "nvidia_names", "memory_gb", "fp32_tflops", "fp16_tflops", "class", "usage_fee_ucr", "builtin"):
        assert f in i, (k, f)
    assert i["builtin"] is True and i["nvidia_names"] and i["memory_gb"] > 0 and i["fp32_tflops"] > 0, i
    assert i["usage_fee_ucr"] == fee[i["class"]], i
assert items["h100"]["memory_gb"] == 80 and items["h100-nvl"]["memory_gb"] == 94, items["h100"]
assert "NVIDIA H100 80GB HBM3" in items["h100"]["nvidia_names"] and "NVIDIA H100 PCIe" in items["h100"]["nvidia_names"]
assert "NVIDIA GeForce RTX 4090" in items["rtx4090"]["nvidia_names"]
PY

case_ "an inventory naming NVIDIA H100 80GB HBM3 x8 is an h100 x8 node"
rd --output json -c "node add dc h1 --minion m-h1 --inventory $INV/h100x8-smi.yaml"
expect_status 0
expect_json gpu_type h100
expect_json gpu_count 8

case_ "gpu add: an operator's type, listed with its class's fee"
rd --output json -c "gpu add z9 --nvidia-name 'NVIDIA Z9 Prototype' --nvidia-name 'Z9-SXM' --memory-gb 64 --fp32 12.5 --fp16 50 --class professional --form sxm"
expect_status 0
expect_json id z9
expect_json usage_fee_ucr 100000
expect_json builtin false
rd --output json -c "gpu list"
python3 - "$OUT" <<'PY' && pass || fail "z9 in gpu list"
import json, sys
i = {i["id"]: i for i in json.load(open(sys.argv[1]))["items"]}["z9"]
assert i["nvidia_names"] == ["NVIDIA Z9 Prototype", "Z9-SXM"] and i["memory_gb"] == 64, i
assert i["fp32_tflops"] == 12.5 and i["fp16_tflops"] == 50 and i["class"] == "professional", i
PY

case_ "gpu add/set/remove refusals: one line naming the field and the rule, exit 1, nothing changed"
before=$(snapshot)
ok="--nvidia-name 'NVIDIA Z7' --memory-gb 8 --fp32 1 --fp16 2 --class development"
rd -c "gpu add z9 $ok"
expect_refused 1 "$before" "ID z9 must be unique"
rd -c "gpu add h100 $ok"
expect_refused 1 "$before" "ID h100 must be unique"
rd -c "gpu add z7 --nvidia-name 'nvidia z9 prototype' --memory-gb 8 --fp32 1 --fp16 2 --class development"
expect_refused 1 "$before" "nvidia-name 'nvidia z9 prototype' must be unique: GPU type z9 lists it"
rd -c "gpu add z7 --nvidia-name 'H100 PCIe' --memory-gb 8 --fp32 1 --fp16 2 --class development"
expect_refused 1 "$before" "must be unique: GPU type h100 lists it"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --fp32 1 --fp16 2 --class development"
expect_refused 1 "$before" "\-\-memory-gb is required"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb 8 --fp16 2 --class development"
expect_refused 1 "$before" "\-\-fp32 is required"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb 8 --fp32 1 --class development"
expect_refused 1 "$before" "\-\-fp16 is required"
rd -c "gpu add z7 --memory-gb 8 --fp32 1 --fp16 2 --class development"
expect_refused 1 "$before" "\-\-nvidia-name is required"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb 8 --fp32 1 --fp16 2"
expect_refused 1 "$before" "\-\-class is required"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb 0 --fp32 1 --fp16 2 --class development"
expect_refused 1 "$before" "\-\-memory-gb must be a whole number from 1"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb -8 --fp32 1 --fp16 2 --class development"
expect_refused 1 "$before" "\-\-memory-gb must be a whole number from 1"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb 8 --fp32 0 --fp16 2 --class development"
expect_refused 1 "$before" "\-\-fp32 must be a positive number"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb 8 --fp32 1 --fp16 -2 --class development"
expect_refused 1 "$before" "\-\-fp16 must be a positive number"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb 8 --fp32 1 --fp16 2 --class gaming"
expect_refused 1 "$before" "\-\-class must be one of development, professional, datacenter"
rd -c "gpu add z7 --nvidia-name '' --memory-gb 8 --fp32 1 --fp16 2 --class development"
expect_refused 1 "$before" "\-\-nvidia-name must be 1-96 printable ASCII characters"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --nvidia-name 'nvidia z7' --memory-gb 8 --fp32 1 --fp16 2 --class development"
expect_refused 1 "$before" "must be unique: given twice"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb 8 --fp32 1.25 --fp16 2 --class development"
expect_refused 1 "$before" "\-\-fp32 must be a positive number of TFLOPS below 100000 with at most one decimal"
rd -c "gpu add z7 --nvidia-name 'NVIDIA Z7' --memory-gb 8 --fp32 1 --fp16 2 --class development --form oam"
expect_refused 1 "$before" "\-\-form must be one of pcie, sxm"
rd -c "gpu add Z7 $ok"
expect_refused 1 "$before" "ID must be 1-31 characters of a-z, 0-9 and -"
rd -c "gpu add abcdefghijklmnopqrstuvwxyz012345 $ok"
expect_refused 1 "$before" "ID must be 1-31 characters"
rd -c "gpu set a100 --memory-gb 48"
expect_refused 1 "$before" "ID a100 is a built-in GPU type: built-in types cannot be changed or removed"
rd -c "gpu remove t4"
expect_refused 1 "$before" "ID t4 is a built-in GPU type"
rd -c "gpu remove cpu"
expect_refused 1 "$before" "ID cpu is a built-in GPU type"
rd -c "gpu set z9 --class premium"
expect_refused 1 "$before" "\-\-class must be one of"
rd -c "gpu set z9 --gcp-accelerator nvidia-z9"
expect_refused 1 "$before" "must be given together"
rd --as alice -c "gpu add z7 $ok"
expect_refused 1 "$before" "administering account"

case_ "gpu set changes an added type's figures"
rd --output json -c "gpu set z9 --memory-gb 96 --gcp-accelerator nvidia-z9 --gcp-quota NVIDIA_Z9_GPUS --gcp-cpus-per-gpu 12"
expect_status 0
expect_json memory_gb 96
expect_json gcp_accelerator nvidia-z9
expect_json nvidia_names.len 2

case_ "an added type on a node (by its nvidia-smi name), in a price, a quota, a job spec: placed and billed at its class's fee"
sed 's/"NVIDIA H100 80GB HBM3", count: 8, memory_gb: 80/"Z9-SXM", count: 2, memory_gb: 96/' $INV/h100x8-smi.yaml >"$TMP/z9.yaml"
rd --as alice -c "provider enable physical" -c "region create lab --provider physical --storage local"
rd --as alice --output json -c "node add lab z-1 --agent none --minion m-z1 --inventory $TMP/z9.yaml" -c "node maintenance z-1 off"
expect_status 0
rd --as alice --output json -c "node show z-1"
expect_json gpu_type z9
expect_json gpu_count 2
rd -c "price set z9 0.5"
expect_status 0
rd -c "price set z9 0.05"
expect_status 1
expect_err "usage fee of z9 (professional GPUs: 0.10 credits"
cat >"$TMP/z9-job.yaml" <<'YAML'
name: z9-train
type: training
resources:
  gpu_types: [z9]
  gpu_count: 1
  disk_size: 50
workers:
  count: 1
  commands: ["python train.py"]
environment:
  python: "3.9"
  framework: pytorch
YAML
start=$(bal alice)
rd --as alice --output json --now 2026-11-01T00:00:00Z -c "job submit $TMP/z9-job.yaml"
expect_status 0
JOB=$(jget id)
rd --now 2026-11-01T00:00:00Z -c "sched run"
rd --as alice --output json -c "job show $JOB"
expect_json state running
expect_json workers.0.node z-1
expect_json workers.0.gpu_type z9

case_ "gpu remove is refused while a node has the type or an unfinished job asks for it"
before=$(snapshot)
rd -c "gpu remove z9"
expect_refused 1 "$before" "ID z9 is in use and cannot be removed: node z-1 has it"

rd --as alice --now 2026-11-01T02:00:00Z -c "job stop $JOB"
expect_status 0
rd --now 2026-11-01T02:00:00Z -c "bill run"
expect_status 0
# two GPU-hours on alice's own z9: the professional usage fee, 0.10 per GPU-hour
check "alice pays 2 x 0.10" "$(bal alice)" $((start - 2 * 100000))

case_ "reports, quotas and alert rules take an added type"
rd --as alice --output json --now 2026-11-01T03:00:00Z -c "report rent-vs-buy --since 2026-11-01T00:00:00Z --until 2026-11-01T03:00:00Z --gpu-type z9"
expect_status 0
expect_json items.0.gpu_type z9
rd --as alice --output json --now 2026-11-01T03:00:00Z -c "report rent-vs-buy --since 2026-11-01T00:00:00Z --until 2026-11-01T03:00:00Z"
expect_status 0
expect_json items.0.gpu_type z9

case_ "gpu remove of an added type no node or job uses"
rd --as alice -c "node remove z-1"
expect_status 0
rd --output json -c "gpu remove z9"
expect_status 0
rd --output json -c "gpu list"
python3 - "$OUT" <<'PY' && pass || fail "z9 gone"
import json, sys
assert "z9" not in {i["id"] for i in json.load(open(sys.argv[1]))["items"]}
PY
before=$(snapshot)
rd -c "gpu remove z9"
expect_refused 1 "$before" "ID z9 is not a GPU type"

case_ "discovery: an agent whose nvidia-smi prints NVIDIA H100 80GB HBM3 x8 reports h100 x8; an added name maps too"
mkdir -p "$TMP/work"
agent_once () {
    node=$1; shift
    env -u RIGDECK_NOW $WRAP "$BIN" agent --store "$STORE" --node "$node" --work-dir "$TMP/work/$node" --heartbeat 1s \
        --runtime process --once "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
i=0; : >"$TMP/h100.csv"
while [ $i -lt 8 ]; do
    echo "$i, NVIDIA H100 80GB HBM3, 81559, 5, 16, 0, 0, 35, 70.00, 0" >>"$TMP/h100.csv"; i=$((i + 1))
done
rd -c "node add dc d-h100 --minion m-dh" -c "node add dc d-z5 --minion m-dz"
expect_status 0
FAKE_NVIDIA_SMI_CSV=$TMP/h100.csv RIGDECK_NVIDIA_SMI=tests/agent/fake-nvidia-smi agent_once d-h100
expect_status 0
rd --output json -c "node show d-h100"
expect_json gpu_type h100
expect_json gpu_count 8
expect_json inventory_problems "[]"
rd -c "gpu add z5 --nvidia-name 'NVIDIA Z5 Prototype 48GB' --memory-gb 48 --fp32 20 --fp16 80 --class datacenter"
expect_status 0
printf '0, nvidia z5 prototype 48gb, 49140, 4, 16, 0, 0, 35, 70.00, 0\n' >"$TMP/z5.csv"
FAKE_NVIDIA_SMI_CSV=$TMP/z5.csv RIGDECK_NVIDIA_SMI=tests/agent/fake-nvidia-smi agent_once d-z5
expect_status 0
rd --output json -c "node show d-z5"
expect_json gpu_type z5
expect_json gpu_count 1

finish
