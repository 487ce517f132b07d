#!/usr/bin/env python3
"""demo_fleet.py BIN STORE - builds the large demo fleet of `make run`.

Run it from the top of the source tree (it reads scripts/demo-fleet.txt);
`demo_fleet.py --help` prints its usage.

Only through the command language (rigdeck --batch), a month of life of a
realistic fleet: both providers, 7 regions (5 physical, 2 GCP with quotas),
200+ nodes of mixed GPU types and states, 20+ devices, datastores and
reservations, 500+ jobs that end in every state, and the ledger history
that daily `bill run`s leave.  Deterministic (fixed seed).  It first loads
scripts/demo-fleet.txt, the small fleet the walk-through test checks.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone



def parse_args(argv=None):
    """BIN and STORE from the command line; --help prints the usage."""
    p = argparse.ArgumentParser(
        prog="demo_fleet.py",
        description="Builds the large demo fleet of `make run` through rigdeck's command language: "
                    "a month of life of a fleet (7 regions, 200+ nodes, 20+ devices, 500+ jobs, the ledger "
                    "of daily bill runs), deterministic.  Run it from the top of the source tree.",
        epilog="environment: RIGDECK_DEMO_START=YYYY-MM-DD fixes the month's first day (default: the month "
               "that ends today); RIGDECK_MASTER_KEY names the master key (default: demo.key beside the store).  "
               "example: scripts/demo_fleet.py build/rigdeck sqlite:/tmp/demo.db")
    p.add_argument("bin", metavar="BIN", help="the rigdeck binary, e.g. build/rigdeck")
    p.add_argument("store", metavar="STORE", help="the store to fill: sqlite:PATH, a path, or etcd://HOST:PORT")
    return p.parse_args(argv)


ARGS = parse_args()
BIN, STORE = ARGS.bin, ARGS.store
rng = random.Random(2026_11)
WORK = tempfile.mkdtemp(prefix="rigdeck-demo.")
ENV = dict(os.environ)
ENV.setdefault("RIGDECK_MASTER_KEY", os.path.join(os.path.dirname(STORE.split(":", 1)[-1]) or ".", "demo.key"))
# The month that ends today, so the console's clock reads naturally;
# RIGDECK_DEMO_START (YYYY-MM-DD) fixes its first day instead, for tests
# that check the month's reports against a hand computation.
if os.environ.get("RIGDECK_DEMO_START"):
    T0 = datetime.strptime(os.environ["RIGDECK_DEMO_START"], "%Y-%m-%d").replace(tzinfo=timezone.utc)
else:
    T0 = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=30)
REFUSED = []


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def run(lines, now, actor="default"):
    """Runs lines in one batch process; refused lines are expected in a demo
    (a job may have ended already), so the run keeps going."""
    path = os.path.join(WORK, "lines.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    p = subprocess.run([BIN, "--batch", "--store", STORE, "--as", actor, "--now", ts(now), "--keep-going",
                        "--output", "json", "-f", path], capture_output=True, text=True, env=ENV)
    if p.returncode == 3:
        sys.exit(f"demo: the store could not be opened: {p.stderr.strip()}")
    REFUSED.extend(l for l in p.stderr.splitlines() if l.strip())
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def inventory(name, model, count, mem, gen=4, lanes=16, cores=None, ram=None, tpm="2.0", sata=3):
    path = os.path.join(WORK, name + ".yaml")
    gpus = f"[{{model: {model}, count: {count}, memory_gb: {mem}, pcie_gen: {gen}, pcie_lanes: {lanes}}}]" if count else "[]"
    with open(path, "w") as f:
        f.write(f"gpus: {gpus}\ncpu_cores: {cores or max(16, count * 8)}\nmemory_gb: {ram or max(128, count * mem * 3)}\n"
                f"nvme: [{{size_gb: 2000}}, {{size_gb: 2000}}]\n"
                f"sata: [{', '.join(['{size_gb: 4000, kind: hdd}'] * sata)}]\n"
                f"tpm: {json.dumps(tpm) if tpm else 'null'}\nnetwork_gbps: 25\n")
    return path


def spec(name, gpu, count, max_price, workers=1, kind="training"):
    path = os.path.join(WORK, f"{name}.yaml")
    cmds = '["python train.py"]' if kind in ("training", "inference") else None
    with open(path, "w") as f:
        f.write(f"name: {name}\ntype: {kind}\nresources:\n  gpu_types: [{gpu}]\n")
        f.write(f"  cpu_count: 8\n" if gpu == "cpu" else f"  gpu_count: {count}\n")
        f.write(f"  max_price: {max_price}\n  disk_size: 50\n")
        if cmds:
            f.write(f"workers:\n  count: {workers}\n  commands: {cmds}\n")
        f.write('environment:\n  python: "3.9"\n  framework: pytorch\n')
    return path


def vitals(month_end):
    """Three hours of vital stats per active node, up to now (the demo has no
    agents: `metrics import` stands in for them), so the Dashboard's
    sparklines have something to draw."""
    now = max(datetime.now(timezone.utc), month_end).replace(microsecond=0)
    nodes = run(["node list --state active"], now)
    items = nodes[0].get("items", []) if nodes else []
    lines = []
    for n in items:
        gpus = 0 if n.get("gpu_type") == "cpu" else int(n.get("gpu_count") or 0)
        busy = float(n.get("gpus_used") or 0) / gpus if gpus else 0.0
        path = os.path.join(WORK, f"vitals-{n['name']}.jsonl")
        phase = rng.random() * 6.28
        with open(path, "w") as f:
            for k in range(180, 0, -1):
                t = now - timedelta(minutes=k)
                wave = 0.5 + 0.5 * math.sin(phase + k / 17.0)
                sample = {"t": ts(t), "cpu_util": round(10 + 60 * busy * wave + rng.random() * 5, 1),
                          "mem_used_gb": round(40 + 300 * busy * wave, 1), "disk_used_gb": 900 + (180 - k) * 0.2,
                          "disk_read_bps": int(2e8 * busy * wave), "disk_write_bps": int(5e7 * busy * wave),
                          "net_rx_bps": int(1e8 * busy * wave), "net_tx_bps": int(2e7 * busy * wave), "gpus": []}
                for g in range(gpus):
                    on = g < round(busy * gpus)
                    util = (70 + 28 * wave) if on else rng.random() * 3
                    hot = 8 if (n["name"].endswith("7") and g == 0) else 0
                    sample["gpus"].append({"index": g, "gpu_util": round(util, 1),
                                           "gpu_mem_used_gb": round(30 * wave, 1) if on else 0.1,
                                           "gpu_temp_c": int(38 + util / 2.2) + hot, "gpu_power_w": round(60 + util * 2.6, 1),
                                           "gpu_ecc_errors": 0})
                f.write(json.dumps(sample) + "\n")
        lines.append(f"metrics import {n['name']} {path}")
    run(lines, now)


def main():
    print("demo: building the demo fleet (a month of history; about a minute)...", flush=True)
    subprocess.run([BIN, "--batch", "--store", STORE, "-f", "scripts/demo-fleet.txt"], check=True,
                   capture_output=True, env=ENV)
    start = T0 - timedelta(days=1)
    tenants = ["dana", "erik", "fatima", "gao", "hana", "ivan", "jules", "kofi", "lena", "mateo"]
    lines = [f"account create {t} --plan {rng.choice(['free', 'team', 'team', 'enterprise'])}" for t in tenants]
    lines += [f"account deposit {t} {rng.choice([20000, 50000, 100000, 100])}" for t in tenants + ["alice", "bob", "carol"]]
    lines += ["account deposit default 50000"]
    lines += [f"price set {g} {p}" for g, p in [("a100", 2.78), ("a100-80gb", 3.4), ("v100", 1.1), ("t4", 0.45),
                                                ("rtx3090", 0.6), ("rtx-a6000", 0.95), ("rtx2080ti", 0.35), ("cpu", 0.12)]]
    # Regions: three more physical sites and two GCP regions.
    lines += ["region create dc-west --provider physical --storage local --public",
              "region create research --provider physical --storage local",
              "region create edge --provider physical --storage central"]
    inv = {
        "a100": inventory("a100", "a100", 8, 40, ram=1024, cores=64),
        "a100-80gb": inventory("a10080", "a100-80gb", 4, 80, ram=1024, cores=64),
        "v100": inventory("v100", "v100", 8, 16, gen=3, cores=32),
        "t4": inventory("t4", "t4", 4, 16, gen=3),
        "rtx3090": inventory("r3090", "rtx3090", 4, 24, gen=4),
        "rtx-a6000": inventory("a6000", "rtx-a6000", 4, 48, gen=4),
        "rtx2080ti": inventory("r2080", "rtx2080ti", 4, 11, gen=3),
        "cpu": inventory("cpu", None, 0, 0, cores=64, ram=512),
        "bad": inventory("bad", "v100", 4, 16, gen=3, lanes=4, cores=8, ram=64, tpm=None, sata=1),
        "storage": inventory("storage", None, 0, 0, sata=0),
    }
    types = ["a100", "a100", "v100", "t4", "rtx3090", "rtx3090", "rtx-a6000", "rtx2080ti", "a100-80gb", "cpu"]
    lines += [f"node add edge edge-storage --agent none --minion edge-st --role storage --inventory {inv['storage']}"]
    names = []
    for i in range(210):
        region = ["dc-east", "dc-west", "research", "dc-west", "dc-east"][i % 5]
        kind = types[i % len(types)]
        name = f"{region.split('-')[-1][:4]}-{kind.replace('-', '')[:6]}-{i:03d}"
        roll = rng.random()
        if roll < 0.03:
            lines.append(f"node add {region} {name} --agent none --minion mn-{i:04d}")                       # provisioning
        elif roll < 0.07:
            lines.append(f"node add {region} {name} --agent none --minion mn-{i:04d} --inventory {inv['bad']}")  # rejected
        else:
            lines.append(f"node add {region} {name} --agent none --minion mn-{i:04d} --inventory {inv[kind]}")
            if roll > 0.12:
                lines.append(f"node maintenance {name} off")
                names.append(name)
            if kind in ("t4", "rtx3090") and roll > 0.5:
                lines.append(f"node set {name} --gpu-sharing on")
    lines += [f"datastore add dc-east ds-{n} --type nfs --address nas{n}.dc.local --root /exports/{n}" for n in ("imagenet", "coco", "scratch")]
    lines += ["datastore add research ds-archive --type nfs --address archive.lab.local --root /"]
    lines += [f"reservation add dc-east api-{n} --hostname api{n}.local --port {8000 + n}" for n in range(4)]
    lines += ["device-config create edge count --image nvcr.io/acme/count:2.1 --model people-count --command 'python run.py'"]
    run(lines, start)

    # Google Cloud: a service-account key made here, two regions with quotas.
    key = os.path.join(WORK, "sa.pem")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True, capture_output=True)
    sa = {"type": "service_account", "project_id": "rigdeck-demo", "private_key_id": "demo",
          "private_key": open(key).read(), "client_email": "rigdeck@rigdeck-demo.iam.gserviceaccount.com",
          "token_uri": "https://oauth2.googleapis.com/token"}
    with open(os.path.join(WORK, "sa.json"), "w") as f:
        json.dump(sa, f)
    run([f"provider enable gcp --key-file {os.path.join(WORK, 'sa.json')}",
         "region create gcp-central --provider gcp --gcp-region us-central1 --storage-class medium --agent none",
         "region create gcp-europe --provider gcp --gcp-region europe-west4 --storage-class small --idle-release 30m --agent none",
         "node report gcp-central-storage --instance running",
         "quota set gcp-central NVIDIA_A100_GPUS 16 --usage 4", "quota set gcp-central NVIDIA_V100_GPUS 8",
         "quota set gcp-central NVIDIA_T4_GPUS 32 --usage 8", "quota set gcp-central CPUS 256 --usage 96",
         "quota set gcp-central LOCAL_SSD_TOTAL_GB 9000 --usage 1500",
         "quota set gcp-europe NVIDIA_A100_GPUS 8", "quota set gcp-europe CPUS 48", "quota set gcp-europe LOCAL_SSD_TOTAL_GB 0"],
        start)

    # Devices in the edge region, most running the counting model.
    lines = []
    for d in range(24):
        model = ["jetson-orin-nano", "jetson-agx-orin", "jetson-xavier-nx", "jetson-orin-nx", "jetson-agx-xavier"][d % 5]
        lines += [f"device add edge edge-cam-{d:02d} --minion jd-{d:04d} --model {model}"]
        if d % 6:
            lines += [f"device report edge-cam-{d:02d} --status ready", f"device set-config edge-cam-{d:02d} count",
                      f"device deploy edge-cam-{d:02d}", f"device report edge-cam-{d:02d} --status running"]
    lines += ["device report edge-cam-07 --status failed"]
    run(lines, start + timedelta(hours=2))

    # A month of jobs: submissions, passes, ends, daily billing.
    shapes = [("a100", 1, 3), ("a100", 2, 3), ("a100", 4, 3.5), ("v100", 1, 1.5), ("t4", 1, 0.6), ("t4", 0.5, 0.6),
              ("rtx3090", 1, 0.8), ("rtx3090", 0.25, 0.8), ("rtx-a6000", 2, 1.2), ("cpu", 0, 0.2), ("a100", 1, 1.0),
              ("a100-80gb", 4, 4)]
    specs = [spec(f"{g.replace('-', '')}-{str(c).replace('.', '_')}-{i}", g, c, p) for i, (g, c, p) in enumerate(shapes)]
    owners = tenants + ["alice", "bob", "carol"]
    live = []
    for day in range(30):
        base = T0 + timedelta(days=day)
        for hour in (9, 14, 20):
            now = base + timedelta(hours=hour, minutes=rng.randrange(60))
            for who in rng.sample(owners, 4):
                sub = [f"job submit {rng.choice(specs)}" + (" --priority 5" if rng.random() < 0.1 else "")
                       for _ in range(rng.randrange(1, 3))]
                for res in run(sub, now, actor=who):
                    if "id" in res:
                        live.append((res["id"], who))
            ends, keep = [], []
            for jid, who in live:
                r = rng.random()
                if r < 0.18:
                    ends.append((f"job report {jid} --worker 0 finished", who))
                elif r < 0.22:
                    ends.append((f"job report {jid} --worker 0 failed", who))
                elif r < 0.28:
                    ends.append((f"job stop {jid}", who))
                else:
                    keep.append((jid, who))
            live = keep
            for line, who in ends:
                run([line], now + timedelta(minutes=30), actor="default" if "report" in line else who)
            run(["sched run"], now + timedelta(minutes=31))
        run(["bill run"], base + timedelta(days=1, minutes=5))
        if day % 5 == 0:
            print(f"demo: day {day + 1} of 30", flush=True)
    vitals(T0 + timedelta(days=30))
    print(f"demo: done ({len(REFUSED)} lines refused along the way, as a real month has)", flush=True)
    if os.environ.get("RIGDECK_DEMO_DEBUG"):
        print("\n".join(REFUSED[:40]))


main()
