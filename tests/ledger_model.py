#!/usr/bin/env python3
"""ledger_model.py BIN STORE_DIR [SCENARIOS] [SEED] - randomized billing check.

Each scenario starts from the same small fleet, then plays a random story
across a month boundary: jobs submitted in own, public and shared projects,
scheduled, stopped at random times; devices added and removed (several on
one day, some the same day); `bill run` at random moments and at the end.
The expected money is computed here, independently of rigdeck, from the
rules of spec/billing.md and the workers' recorded starts, ends, prices and
hosts; every account (wallet + earnings, and platform) must match to the
micro-credit, and `ledger verify` must pass.  Prints one line per failing
scenario and a final "ledger-model: passed=N failed=M".
"""
import json
import os
import random
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone

BIN, DIR = sys.argv[1], sys.argv[2]
SCENARIOS = int(sys.argv[3]) if len(sys.argv) > 3 else 200
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 20261122
UCR = 1_000_000
FEE = {"a100": 250_000, "rtx3090": 50_000}
PRICE = {"a100": 2_780_000, "rtx3090": 600_000}
FEDERATED_TRAINING = 2_650_000
DEVICE_FEE_MONTH = 15 * UCR
START = datetime(2026, 11, 28, tzinfo=timezone.utc)
ENV = dict(os.environ, RIGDECK_MASTER_KEY=os.path.join(DIR, "master.key"))


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def rd(store, now, *lines, actor="default", check=True):
    args = [BIN, "--batch", "--store", store, "--as", actor, "--now", ts(now), "--output", "json"]
    for l in lines:
        args += ["-c", l]
    p = subprocess.run(args, capture_output=True, text=True, env=ENV)
    if check and p.returncode != 0:
        raise RuntimeError(f"{lines}: exit {p.returncode}: {p.stderr.strip()}")
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def round_half_away(num, den):
    q, r = divmod(abs(num), den)
    if 2 * r >= den:
        q += 1
    return q if num >= 0 else -q


def days_in_month(t):
    nxt = (t.replace(day=28) + timedelta(days=4)).replace(day=1)
    return (nxt - timedelta(days=1)).day


def build_template(path):
    inv = "tests/inventories"
    t0 = START - timedelta(days=1)
    rd(path, t0, "account create alice --plan team", "account create bob --plan team",
       "account deposit alice 1000", "account deposit bob 1000",
       "provider enable physical", "region create dc --provider physical --storage local --public",
       f"node add dc pub-a --agent none --minion m1 --inventory {inv}/a100x4.yaml",
       f"node add dc pub-w --agent none --minion m2 --inventory {inv}/rtx3090x2.yaml",
       "node maintenance pub-a off", "node maintenance pub-w off",
       "price set a100 2.78", "price set rtx3090 0.6")
    rd(path, t0, "provider enable physical", "region create alab --provider physical --storage central",
       f"node add alab a-st --agent none --minion m3 --role storage --inventory {inv}/storage.yaml",
       f"node add alab a-1 --agent none --minion m4 --inventory {inv}/a100x4.yaml", "node maintenance a-1 off",
       "node set a-1 --gpu-sharing on",
       "project create vision", "project share vision bob", actor="alice")


def expected(store, end, devices):
    """Money by ledger account from the recorded workers and device tenures."""
    bal = {"wallet:alice": 1000 * UCR, "wallet:bob": 1000 * UCR, "wallet:default": 0,
           "earnings:default": 0, "earnings:alice": 0, "platform": 0}
    jobs = rd(store, end, "job list")[0]["items"]
    for j in jobs:
        owner, creator = j["project_owner"], j["creator"]
        gpus = j["resources"]["gpus_x100"]
        for w in j["workers"]:
            if not w.get("started_at"):
                continue
            s = parse(w["started_at"])
            e = parse(w["ended_at"]) if w.get("ended_at") else None
            stop = min(e, end) if e else end
            spans, t = [], s
            while t + timedelta(hours=1) <= stop:
                spans.append(3600)
                t += timedelta(hours=1)
            if e and e <= end and e > t:
                spans.append(int((e - t).total_seconds()))
            for secs in spans:
                paid = round_half_away(w["price_ucr"] * gpus * secs, 360000)
                bal["wallet:" + owner] -= paid
                if w["own"]:
                    bal["platform"] += paid
                else:
                    host = round_half_away((w["price_ucr"] - FEE[w["gpu_type"]]) * gpus * secs, 720000)
                    bal["earnings:" + w["host"]] += host
                    bal["platform"] += paid - host
                if creator != owner and j["type"] == "training":
                    fed = round_half_away(FEDERATED_TRAINING * 100 * secs, 360000)
                    bal["wallet:" + creator] -= fed
                    bal["platform"] += fed
    day = START.replace(hour=0, minute=0, second=0)
    while day + timedelta(days=1) <= end:
        nxt = day + timedelta(days=1)
        count = sum(1 for (a, r) in devices if a < nxt and (r is None or r >= day))
        if count:
            fee = round_half_away(DEVICE_FEE_MONTH * count, days_in_month(day))
            bal["wallet:alice"] -= fee
            bal["platform"] += fee
        day = nxt
    return bal


def actual(store, end):
    out = {}
    for acct in ("alice", "bob", "default"):
        b = rd(store, end, f"ledger balance {acct}")[0]
        out["wallet:" + acct] = b["balance_ucr"]
        out["earnings:" + acct] = b.get("earnings_ucr", 0)
    out["platform"] = rd(store, end, "ledger balance platform")[0]["balance_ucr"]
    return out


def scenario(template, n, rng):
    store = os.path.join(DIR, f"s{n}.db")
    shutil.copy(template, store)
    store = "sqlite:" + store
    specs = ["a100-1", "a100-2", "rtx-1", "half"]
    t = START + timedelta(minutes=rng.randrange(0, 600))
    end = START + timedelta(days=rng.randrange(2, 6), minutes=rng.randrange(0, 1440))
    running, devices, dev_n = [], [], 0
    while t < end:
        r = rng.random()
        if r < 0.35:
            who = rng.choice([("alice", ""), ("bob", ""), ("bob", " --project alice/vision")])
            job = rd(store, t, f"job submit tests/specs/sched/{rng.choice(specs)}.yaml{who[1]}", actor=who[0])[0]
            rd(store, t, "sched run")
            running.append((job["id"], who[0]))
        elif r < 0.6 and running:
            jid, who = running.pop(rng.randrange(len(running)))
            rd(store, t, f"job stop {jid}", actor=who, check=False)
            rd(store, t, "sched run")
        elif r < 0.75:
            dev_n += 1
            rd(store, t, f"device add alab d{dev_n} --minion dev{dev_n} --model jetson-orin-nano", actor="alice")
            devices.append([t, None, f"d{dev_n}"])
        elif r < 0.85 and any(d[1] is None for d in devices):
            d = rng.choice([d for d in devices if d[1] is None])
            rd(store, t, f"device remove {d[2]}", actor="alice")
            d[1] = t
        else:
            rd(store, t, "bill run")
        t += timedelta(minutes=rng.randrange(1, 900), seconds=rng.randrange(0, 60))
    rd(store, end, "bill run")
    want = expected(store, end, [(a, r) for a, r, _ in devices])
    got = actual(store, end)
    problems = []
    for tenant in ("alice", "bob", "default"):
        w = want["wallet:" + tenant] + want.get("earnings:" + tenant, 0)
        g = got["wallet:" + tenant] + got["earnings:" + tenant]
        if w != g:
            problems.append(f"{tenant}: expected {w}, got {g}")
    if want["platform"] != got["platform"]:
        problems.append(f"platform: expected {want['platform']}, got {got['platform']}")
    v = subprocess.run([BIN, "--batch", "--store", store, "-c", "ledger verify"], capture_output=True, text=True, env=ENV)
    if v.returncode != 0:
        problems.append("ledger verify: " + v.stderr.strip())
    os.remove(store[len("sqlite:"):])
    return problems


def main():
    template = os.path.join(DIR, "template.db")
    build_template("sqlite:" + template)
    rng = random.Random(SEED)
    passed = failed = 0
    for n in range(SCENARIOS):
        try:
            problems = scenario(template, n, random.Random(rng.random()))
        except RuntimeError as e:
            problems = [str(e)]
        if problems:
            failed += 1
            print(f"scenario {n}: " + "; ".join(problems))
        else:
            passed += 1
    print(f"ledger-model: passed={passed} failed={failed}")
    return 1 if failed else 0


sys.exit(main())
