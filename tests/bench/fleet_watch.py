#!/usr/bin/env python3
"""fleet_watch.py STORE_URL JOBS TIMEOUT_S LABEL SLOTS - the outside observer of bench_fleet.sh.

Follows every write under /rigdeck/jobs/ as it happens and stamps it with
this machine's clock (milliseconds), which is finer than the whole seconds
of the store's own timestamps:
  SQLite  polls the store's history table (kv_log, newest revisions) every
          POLL_S; a key's newest row's value is the one in kv, an older
          row's is kept by the row that replaced it (prev_value)
  etcd    one watch stream over the JSON gateway (/v3/watch)
For each job it keeps the moment its document first appeared (submitted),
the first revision in which its worker has a node (placed), the first in
which the worker has started_at (running: the agent reported it) and the
first with ended_at.  Prints "ready" on stdout once it watches; stops when
JOBS jobs have ended or after TIMEOUT_S, then prints a human report and
`bench:` lines to stdout (the caller collects them).  SLOTS is how many
one-GPU workers the fleet runs at once: the first SLOTS jobs submitted never
wait for capacity, so their submit-to-running is the fleet's reaction time.
"""
import base64
import http.client
import json
import sqlite3
import sys
import time

POLL_S = 0.01
PREFIX = "/rigdeck/jobs/"


def pct(xs, p):
    """The p-th percentile (nearest rank) of xs."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


class Jobs:
    def __init__(self):
        self.t = {}        # id -> {"sub","placed","running","ended": wall clock s}
        self.stamp = {}    # id -> (submitted_at, placed_at, started_at, ended_at) as the store wrote them
        self.ended = 0

    def see(self, key, value, now):
        if not key.startswith(PREFIX) or not value:
            return
        jid = key[len(PREFIX):]
        try:
            doc = json.loads(value)
        except ValueError:
            return
        t = self.t.setdefault(jid, {"sub": now})
        ws = doc.get("workers") or [{}]
        w = ws[0]
        if "placed" not in t and w.get("node"):
            t["placed"] = now
        if "running" not in t and w.get("started_at"):
            t["running"] = now
        if "ended" not in t and w.get("ended_at"):
            t["ended"] = now
            self.ended += 1
        self.stamp[jid] = (doc.get("submitted_at"), w.get("placed_at"), w.get("started_at"), w.get("ended_at"))


def follow_sqlite(path, jobs, want, deadline):
    db = sqlite3.connect(path, timeout=10, isolation_level=None)
    db.execute("PRAGMA query_only = 1")
    last = db.execute("SELECT rev FROM meta").fetchone()[0]
    print("ready", flush=True)
    q = ("SELECT l.rev, l.key, COALESCE(k.value, (SELECT s.prev_value FROM kv_log s WHERE s.rev > l.rev"
         " AND s.prev_rev = l.rev AND s.prev_sub = l.sub)) FROM kv_log l LEFT JOIN kv k ON k.key = l.key"
         " AND k.mod_rev = l.rev AND k.mod_sub = l.sub WHERE l.rev > ? AND l.type = 0 ORDER BY l.rev, l.sub")
    while jobs.ended < want and time.time() < deadline:
        db.execute("BEGIN")
        rows = db.execute(q, (last,)).fetchall()
        db.execute("COMMIT")
        now = time.time()
        for rev, key, value in rows:
            last = max(last, rev)
            if isinstance(key, bytes):
                key = key.decode()
            jobs.see(key, value.decode() if isinstance(value, bytes) else value, now)
        time.sleep(POLL_S)


def follow_etcd(hostport, jobs, want, deadline):
    host, port = hostport.split(",")[0].split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=5)
    b64 = lambda s: base64.b64encode(s.encode()).decode()
    body = json.dumps({"create_request": {"key": b64(PREFIX), "range_end": b64(PREFIX[:-1] + "0")}})
    c.request("POST", "/v3/watch", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    while jobs.ended < want and time.time() < deadline:
        try:
            line = r.readline()
        except OSError:        # the read timed out: nothing happened for 5 s
            continue
        if not line:
            break
        now = time.time()
        res = json.loads(line).get("result", {})
        if res.get("created"):
            print("ready", flush=True)
        for ev in res.get("events", []):
            kv = ev.get("kv", {})
            if ev.get("type") == "DELETE":
                continue
            jobs.see(base64.b64decode(kv.get("key", "")).decode(),
                     base64.b64decode(kv.get("value", "")).decode(), now)


def secs(ts):
    return time.mktime(time.strptime(ts, "%Y-%m-%dT%H:%M:%SZ")) if ts else None


def main():
    url, want, timeout, label, slots = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    jobs = Jobs()
    deadline = time.time() + timeout
    if url.startswith("etcd://"):
        follow_etcd(url[len("etcd://"):].split("/")[0], jobs, want, deadline)
    else:
        follow_sqlite(url[len("sqlite:"):] if url.startswith("sqlite:") else url, jobs, want, deadline)

    order = sorted(jobs.t.items(), key=lambda kv: kv[1]["sub"])
    first = order[:slots]
    ran = [t for _, t in order if "running" in t]
    s2r_first = [t["running"] - t["sub"] for _, t in first if "running" in t]
    s2p_first = [t["placed"] - t["sub"] for _, t in first if "placed" in t]
    s2r_all = [t["running"] - t["sub"] for t in ran]
    p2r = [t["running"] - t["placed"] for t in ran if "placed" in t]
    ends = [t["ended"] for _, t in order if "ended" in t]
    wall = (max(ends) - order[0][1]["sub"]) if ends and order else float("nan")
    # the same from the store's own whole-second stamps (first SLOTS jobs)
    coarse = []
    for jid, _ in first:
        st = jobs.stamp.get(jid)
        if st and st[0] and st[2]:
            coarse.append(secs(st[2]) - secs(st[0]))
    print(f"{label}: {len(order)} jobs seen, {len(ran)} ran, {len(ends)} ended"
          f" (of {want}; {'all done' if len(ends) >= want else 'TIMED OUT'})")
    print(f"{label}: first {len(first)} jobs (no queueing): submit->placed p50 {pct(s2p_first, 50):.3f} s"
          f" p99 {pct(s2p_first, 99):.3f} s; submit->running p50 {pct(s2r_first, 50):.3f} s p99 {pct(s2r_first, 99):.3f} s"
          f" max {max(s2r_first) if s2r_first else float('nan'):.3f} s")
    print(f"{label}: the same from the store's whole-second stamps (started_at - submitted_at):"
          f" p50 {pct(coarse, 50):.0f} s p99 {pct(coarse, 99):.0f} s")
    print(f"{label}: all jobs: placed->running p50 {pct(p2r, 50):.3f} s p99 {pct(p2r, 99):.3f} s;"
          f" submit->running (with queueing) p50 {pct(s2r_all, 50):.3f} s p99 {pct(s2r_all, 99):.3f} s")
    print(f"{label}: first submit to last end {wall:.2f} s")
    for name, v in (("submit_to_running_p50", pct(s2r_first, 50)), ("submit_to_running_p99", pct(s2r_first, 99)),
                    ("placed_to_running_p50", pct(p2r, 50)), ("placed_to_running_p99", pct(p2r, 99)),
                    ("queued_submit_to_running_p50", pct(s2r_all, 50)),
                    ("queued_submit_to_running_p99", pct(s2r_all, 99))):
        print(f"bench: {label}_{name} {v:.3f} s")
    print(f"bench: {label}_{want}_jobs_wall_s {wall:.2f} s")
    print(f"bench: {label}_jobs_ended {len(ends)} jobs")


if __name__ == "__main__":
    main()
