#!/usr/bin/env python3
"""fake_gce.py - a loopback fake of the Google endpoints rigdeck's GCE driver uses.

    fake_gce.py --key SA_KEY.json [--port-file FILE] [--log FILE]
                [--boot-dir DIR] [--boot-env NAME=VALUE]...
    fake_gce.py --client URL [--post JSON] [--field PATH]    (test-side helper)

Binds 127.0.0.1 on a free port and prints the port on stdout (and into
--port-file).  Point the key's token_uri at http://127.0.0.1:PORT/token and
RIGDECK_GCP_ENDPOINT at http://127.0.0.1:PORT/compute/v1.

What it does like Google:
  POST /token                      OAuth 2.0 JWT-bearer grant: the assertion's
                                   RS256 signature is checked against the key's
                                   public key (openssl dgst -verify), and iss,
                                   aud, scope, iat, exp; tokens expire.
  GET  .../regions/R               quotas [{metric, limit, usage}], usage
                                   computed from the instances that exist.
  GET  .../zones/Z/instances[/N]   list (paged) and get.
  POST .../zones/Z/instances       insert: checks the body (name, machine
                                   type, guestAccelerators need
                                   onHostMaintenance TERMINATE, a2 sizes),
                                   409 alreadyExists, 403 quotaExceeded.
  DELETE .../zones/Z/instances/N   delete;  POST .../instances/N/start: start.
  GET  .../zones/Z/operations/O    PENDING -> RUNNING -> DONE over op_polls
                                   polls (GETs of the target instance count
                                   as well); ZONE_RESOURCE_POOL_EXHAUSTED
                                   arrives as a DONE operation with an error.

Booting: an instance whose metadata has a `startup-script` item "boots"
when it turns RUNNING: the script runs here, `sh SCRIPT` in its own process
group, with this process's environment plus RIGDECK_RUNTIME=process,
RIGDECK_AGENT_DIR=BOOT_DIR/NAME and every --boot-env (PATH naming the
built rigdeck, for one), its output in BOOT_DIR/NAME.log.  The group is
killed when the instance is deleted, stopped or removed, and when the fake
exits (SIGTERM, SIGINT or the end of serve_forever).  GET /_state lists
them under "boots" ({name: {"pid", "running", "log"}}).

Test controls (no auth):
  POST /_control {"fail_next": ERR, "method": M, "count": N}
        ERR: 401 403 429 500 503 QUOTA_EXCEEDED ZONE_RESOURCE_POOL_EXHAUSTED
             drop (do the work, then close the connection without answering)
        M:   token regions.get instances.list instances.get instances.insert
             instances.delete instances.start operations.get or * (default:
             instances.insert for the two GCE reasons, else any compute call)
  POST /_control {"quotas": {"us-central1": {"NVIDIA_A100_GPUS": 1, ...}}}
  POST /_control {"token_ttl": S, "op_polls": N, "exhausted_zones": [...],
                  "revoke_tokens": true, "reset_counters": true,
                  "remove_instance": {"zone", "name"},
                  "stop_instance": {"zone", "name"},
                  "add_instance": {"zone", "name"}}
  GET  /_state  instances, counters per method, inserts per name, tokens.
"""
import argparse
import base64
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.RLock()

DEFAULT_LIMITS = {
    "CPUS": 72, "N2_CPUS": 24, "LOCAL_SSD_TOTAL_GB": 3000, "SSD_TOTAL_GB": 4096,
    "DISKS_TOTAL_GB": 4096, "INSTANCES": 24, "NVIDIA_T4_GPUS": 4, "NVIDIA_P100_GPUS": 2,
    "NVIDIA_V100_GPUS": 2, "NVIDIA_A100_GPUS": 2, "NVIDIA_A100_80GB_GPUS": 0,
    "PREEMPTIBLE_CPUS": 0, "STATIC_ADDRESSES": 8,
}
ACCELERATORS = {
    "nvidia-tesla-t4": "NVIDIA_T4_GPUS", "nvidia-tesla-p100": "NVIDIA_P100_GPUS",
    "nvidia-tesla-v100": "NVIDIA_V100_GPUS", "nvidia-tesla-a100": "NVIDIA_A100_GPUS",
    "nvidia-a100-80gb": "NVIDIA_A100_80GB_GPUS",
}
NAME_RE = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
COMPUTE_METHODS = {"regions.get", "instances.list", "instances.get", "instances.insert",
                   "instances.delete", "instances.start", "operations.get"}


class State:
    def __init__(self, key):
        self.key = key
        self.project = key["project_id"]
        self.port = 0
        self.tokens = {}            # token -> expiry (time.time())
        self.token_ttl = 3600
        self.op_polls = 3
        self.limits = {}            # region -> {metric: limit}
        self.instances = {}         # (zone, name) -> instance doc
        self.usage = {}             # (zone, name) -> {metric: amount}
        self.ops = {}               # name -> op record
        self.fail_rules = []
        self.exhausted = set()
        self.counters = {}
        self.inserts_by_name = {}
        self.seq = 0
        self.boot_dir = None
        self.boot_env = {}
        self.boots = {}             # instance name -> {"proc", "log"}

    def count(self, method):
        key = method.replace(".", "_")   # counters.instances_insert reads well from a shell
        self.counters[key] = self.counters.get(key, 0) + 1

    def next_id(self):
        self.seq += 1
        return self.seq

    def region_limits(self, region):
        lim = dict(DEFAULT_LIMITS)
        lim.update(self.limits.get(region, {}))
        return lim

    def region_usage(self, region):
        used = {}
        for (zone, name), u in self.usage.items():
            if zone.rsplit("-", 1)[0] != region:
                continue
            for m, v in u.items():
                used[m] = used.get(m, 0) + v
        return used


STATE = None


def now():
    return time.time()


def zone_url(zone):
    return "http://127.0.0.1:%d/compute/v1/projects/%s/zones/%s" % (STATE.port, STATE.project, zone)


def machine_cpus(mt):
    m = re.match(r"^(n1|n2|e2)-standard-(\d+)$", mt)
    if m:
        return int(m.group(2)), "N2_CPUS" if m.group(1) == "n2" else "CPUS"
    m = re.match(r"^custom-(\d+)-(\d+)$", mt)
    if m:
        cpus, mem = int(m.group(1)), int(m.group(2))
        if (cpus != 1 and cpus % 2) or mem % 256 or mem > cpus * 6656 or mem < cpus * 921:
            return None, None
        return cpus, "CPUS"
    m = re.match(r"^a2-(high|ultra|mega)gpu-(\d+)g$", mt)
    if m:
        return 12 * int(m.group(2)), "CPUS"
    return None, None


def gce_error(code, message, reason, status):
    return {"error": {"code": code, "message": message, "status": status,
                      "errors": [{"message": message, "domain": "global", "reason": reason}]}}


# ---- JWT ---------------------------------------------------------------------

def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def verify_jwt(assertion):
    """Returns the claims when the assertion is good, else an error text."""
    parts = assertion.split(".")
    if len(parts) != 3:
        return None, "not a JWT"
    try:
        header = json.loads(b64d(parts[0]))
        claims = json.loads(b64d(parts[1]))
        sig = b64d(parts[2])
    except Exception:
        return None, "malformed JWT"
    if header.get("alg") != "RS256":
        return None, "alg must be RS256"
    with tempfile.TemporaryDirectory() as d:
        data, sigf = os.path.join(d, "data"), os.path.join(d, "sig")
        with open(data, "wb") as f:
            f.write((parts[0] + "." + parts[1]).encode())
        with open(sigf, "wb") as f:
            f.write(sig)
        r = subprocess.run(["openssl", "dgst", "-sha256", "-verify", STATE.pubkey, "-signature", sigf, data],
                           capture_output=True)
        if r.returncode != 0:
            return None, "Invalid JWT Signature."
    t = now()
    if claims.get("iss") != STATE.key["client_email"]:
        return None, "Invalid issuer"
    if claims.get("aud") != STATE.key.get("token_uri"):
        return None, "Invalid audience: %s" % claims.get("aud")
    if "https://www.googleapis.com/auth/compute" not in str(claims.get("scope", "")).split():
        return None, "Invalid scope"
    iat, exp = claims.get("iat", 0), claims.get("exp", 0)
    if not isinstance(iat, int) or not isinstance(exp, int) or iat > t + 60 or exp < t or exp - iat > 3600:
        return None, "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
    return claims, None


# ---- operations --------------------------------------------------------------

def new_op(kind, zone, name, fail=None):
    op_name = "operation-%d-%s" % (int(now() * 1000), secrets.token_hex(4))
    STATE.ops[op_name] = {"name": op_name, "kind": kind, "zone": zone, "target": name, "ticks": 0,
                          "fail": fail, "applied": False, "id": STATE.next_id()}
    return STATE.ops[op_name]


# ---- booting: the startup script runs here -------------------------------------

def boot(inst):
    """Runs the instance's startup script, once per start (GCE runs it at every boot)."""
    script = next((i.get("value") for i in (inst.get("metadata") or {}).get("items", [])
                   if i.get("key") == "startup-script"), None)
    name = inst["name"]
    if script is None or STATE.boot_dir is None:
        return
    old = STATE.boots.get(name)
    if old and old["proc"].poll() is None:
        return
    os.makedirs(STATE.boot_dir, exist_ok=True)
    path = os.path.join(STATE.boot_dir, name + ".startup.sh")
    with open(path, "w") as f:
        f.write(script)
    os.chmod(path, 0o700)   # it may hold the node's store password
    env = dict(os.environ)
    env["RIGDECK_RUNTIME"] = "process"
    env["RIGDECK_AGENT_DIR"] = os.path.join(STATE.boot_dir, name)
    env.update(STATE.boot_env)
    log = os.path.join(STATE.boot_dir, name + ".log")
    out = open(log, "a")
    proc = subprocess.Popen(["sh", path], env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)
    out.close()
    STATE.boots[name] = {"proc": proc, "log": log}


def halt(name):
    """Kills what the instance's startup script started (its process group)."""
    b = STATE.boots.get(name)
    if not b or b["proc"].poll() is not None:
        return
    pgid = b["proc"].pid
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            break
        try:
            b["proc"].wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    # the agent's children (workers under their supervisor) left the group
    # when they made their own session: the group kill reached the agent,
    # which leaves workers running by design; they are the test's to end.


def halt_all():
    for name in list(STATE.boots):
        halt(name)


def op_status(op):
    if op["ticks"] >= STATE.op_polls:
        return "DONE"
    return "RUNNING" if op["ticks"] >= 1 else "PENDING"


def advance(op):
    """Applies what a DONE (or RUNNING) operation did to its instance."""
    st = op_status(op)
    key = (op["zone"], op["target"])
    inst = STATE.instances.get(key)
    if op["fail"]:
        return st
    if st == "RUNNING" and inst is not None:
        if op["kind"] == "insert" and inst["status"] == "PROVISIONING":
            inst["status"] = "STAGING"
        elif op["kind"] == "delete":
            inst["status"] = "STOPPING"
        elif op["kind"] == "start" and inst["status"] in ("TERMINATED", "STOPPED"):
            inst["status"] = "STAGING"
    if st == "DONE" and not op["applied"]:
        op["applied"] = True
        if op["kind"] in ("insert", "start") and inst is not None:
            inst["status"] = "RUNNING"
            boot(inst)
        elif op["kind"] == "delete":
            STATE.instances.pop(key, None)
            STATE.usage.pop(key, None)
            halt(op["target"])
    return st


def op_doc(op):
    st = advance(op)
    doc = {"kind": "compute#operation", "id": str(op["id"]), "name": op["name"],
           "zone": zone_url(op["zone"]), "operationType": op["kind"],
           "targetLink": zone_url(op["zone"]) + "/instances/" + op["target"], "status": st,
           "progress": 100 if st == "DONE" else (50 if st == "RUNNING" else 0),
           "selfLink": zone_url(op["zone"]) + "/operations/" + op["name"]}
    if st == "DONE" and op["fail"]:
        code, msg = op["fail"]
        doc["error"] = {"errors": [{"code": code, "message": msg}]}
        doc["httpErrorStatusCode"] = 503 if code.startswith("ZONE_") else 403
        doc["httpErrorMessage"] = "SERVICE UNAVAILABLE" if code.startswith("ZONE_") else "FORBIDDEN"
    return doc


def settle_ops(zone, name=None, tick=False):
    """Applies what the operations on a zone (or one instance) have done by
    now; with tick, a look at the instance counts as a poll of them."""
    for op in list(STATE.ops.values()):
        if op["zone"] == zone and (name is None or op["target"] == name):
            if tick and op_status(op) != "DONE":
                op["ticks"] += 1
            advance(op)


# ---- instances ---------------------------------------------------------------

def check_insert(zone, body):
    """Returns (usage dict, None) or (None, (http, error doc))."""
    name = body.get("name", "")
    if not NAME_RE.match(name):
        return None, (400, gce_error(400, "Invalid value for field 'resource.name': '%s'." % name, "invalid",
                                     "INVALID_ARGUMENT"))
    mt_url = body.get("machineType", "")
    prefix = "zones/%s/machineTypes/" % zone
    if not mt_url.startswith(prefix):
        return None, (400, gce_error(400, "Invalid value for field 'resource.machineType': '%s'." % mt_url,
                                     "invalid", "INVALID_ARGUMENT"))
    mt = mt_url[len(prefix):]
    cpus, cpu_metric = machine_cpus(mt)
    if cpus is None:
        return None, (400, gce_error(400, "Invalid value for field 'resource.machineType': '%s'. Machine type "
                                     "with name '%s' does not exist in zone '%s'." % (mt_url, mt, zone),
                                     "invalid", "INVALID_ARGUMENT"))
    usage = {cpu_metric: cpus, "INSTANCES": 1}
    accs = body.get("guestAccelerators") or []
    gpus = 0
    for a in accs:
        t = a.get("acceleratorType", "")
        p = "zones/%s/acceleratorTypes/" % zone
        kind = t[len(p):] if t.startswith(p) else None
        if kind not in ACCELERATORS or int(a.get("acceleratorCount", 0)) < 1:
            return None, (400, gce_error(400, "Invalid value for field 'resource.guestAccelerators[0]"
                                         ".acceleratorType': '%s'." % t, "invalid", "INVALID_ARGUMENT"))
        metric = ACCELERATORS[kind]
        usage[metric] = usage.get(metric, 0) + int(a["acceleratorCount"])
        gpus += int(a["acceleratorCount"])
        if mt.startswith("a2-"):
            size = int(re.match(r"^a2-\w+-(\d+)g$", mt).group(1))
            want = "nvidia-a100-80gb" if "ultragpu" in mt else "nvidia-tesla-a100"
            if kind != want or int(a["acceleratorCount"]) != size:
                return None, (400, gce_error(400, "Machine type %s takes %d %s accelerators." % (mt, size, want),
                                             "invalid", "INVALID_ARGUMENT"))
        elif kind in ("nvidia-tesla-a100", "nvidia-a100-80gb"):
            return None, (400, gce_error(400, "%s needs an A2 machine type." % kind, "invalid", "INVALID_ARGUMENT"))
    if gpus and (body.get("scheduling") or {}).get("onHostMaintenance") != "TERMINATE":
        return None, (400, gce_error(400, "Instances with guest accelerators do not support live migration.",
                                     "badRequest", "INVALID_ARGUMENT"))
    boots = 0
    for d in body.get("disks") or []:
        ip = d.get("initializeParams") or {}
        dt = ip.get("diskType", "")
        if d.get("type") == "SCRATCH":
            if not dt.endswith("/local-ssd") or d.get("interface") not in ("NVME", "SCSI"):
                return None, (400, gce_error(400, "Invalid local SSD disk.", "invalid", "INVALID_ARGUMENT"))
            usage["LOCAL_SSD_TOTAL_GB"] = usage.get("LOCAL_SSD_TOTAL_GB", 0) + 375
            continue
        boots += 1 if d.get("boot") else 0
        size = int(ip.get("diskSizeGb", 10))
        metric = "DISKS_TOTAL_GB" if dt.endswith("/pd-standard") else "SSD_TOTAL_GB"
        usage[metric] = usage.get(metric, 0) + size
    if boots != 1:
        return None, (400, gce_error(400, "Exactly one boot disk is required.", "invalid", "INVALID_ARGUMENT"))
    return usage, None


def quota_refusal(region, usage):
    limits, used = STATE.region_limits(region), STATE.region_usage(region)
    for metric, amount in sorted(usage.items(), key=lambda kv: (not kv[0].startswith("NVIDIA"), kv[0])):
        if used.get(metric, 0) + amount > limits.get(metric, 0):
            return metric, limits.get(metric, 0)
    return None, None


def instance_doc(zone, name, body, status):
    return {"kind": "compute#instance", "id": str(STATE.next_id()), "name": name, "zone": zone_url(zone),
            "machineType": zone_url(zone) + "/machineTypes/" + body["machineType"].rsplit("/", 1)[1],
            "status": status, "guestAccelerators": body.get("guestAccelerators", []),
            "disks": body.get("disks", []), "labels": body.get("labels", {}),
            "metadata": body.get("metadata", {}), "scheduling": body.get("scheduling", {}),
            "creationTimestamp": time.strftime("%Y-%m-%dT%H:%M:%S-00:00", time.gmtime()),
            "selfLink": zone_url(zone) + "/instances/" + name}


# ---- the handler -------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-gce/1"

    def log_message(self, fmt, *args):
        if LOG:
            LOG.write("%s %s\n" % (time.strftime("%H:%M:%S"), fmt % args))
            LOG.flush()

    def reply(self, code, doc, headers=None):
        data = json.dumps(doc).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_DELETE(self):
        self.route("DELETE")

    def route(self, verb):
        url = urllib.parse.urlsplit(self.path)
        raw = self.body()
        with LOCK:
            if url.path == "/_control" and verb == "POST":
                return self.control(json.loads(raw or b"{}"))
            if url.path == "/_state":
                return self.reply(200, self.state())
            if url.path == "/token" and verb == "POST":
                return self.token(raw)
            m = re.match(r"^/compute/v1/projects/([^/]+)/(.*)$", url.path)
            if not m:
                return self.reply(404, gce_error(404, "Not Found", "notFound", "NOT_FOUND"))
            return self.compute(verb, m.group(1), m.group(2), urllib.parse.parse_qs(url.query), raw)

    # -- failures on demand

    def take_rule(self, method):
        for rule in STATE.fail_rules:
            if rule["count"] > 0 and (rule["method"] == method or
                                      (rule["method"] == "*" and method in COMPUTE_METHODS)):
                rule["count"] -= 1
                STATE.fail_rules = [r for r in STATE.fail_rules if r["count"] > 0]
                return rule["error"]
        return None

    def canned(self, err, token=None):
        """Answers the failure err; returns True when it answered."""
        if err == "401":
            STATE.tokens.pop(token, None)
            self.reply(401, gce_error(401, "Request had invalid authentication credentials. Expected OAuth 2 "
                                      "access token, login cookie or other valid authentication credential.",
                                      "authError", "UNAUTHENTICATED"))
        elif err == "403":
            self.reply(403, gce_error(403, "Required 'compute.instances.create' permission for 'projects/%s'"
                                      % STATE.project, "forbidden", "PERMISSION_DENIED"))
        elif err == "429":
            self.reply(429, gce_error(429, "Rate Limit Exceeded", "rateLimitExceeded", "RESOURCE_EXHAUSTED"))
        elif err in ("500", "502", "503"):
            self.reply(int(err), gce_error(int(err), "Internal error. Please try again or contact Google Support.",
                                           "backendError", "UNAVAILABLE" if err != "500" else "INTERNAL"))
        else:
            return False
        return True

    # -- OAuth

    def token(self, raw):
        STATE.count("token")
        err = self.take_rule("token")
        if err == "drop":
            self.close_connection = True
            return None
        if err in ("500", "503", "429"):
            return self.reply(int(err), {"error": "internal_failure", "error_description": "try again"})
        if err:
            return self.reply(400, {"error": "invalid_grant", "error_description": "forced failure (%s)" % err})
        form = urllib.parse.parse_qs(raw.decode())
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return self.reply(400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type"})
        claims, why = verify_jwt((form.get("assertion") or [""])[0])
        if why:
            STATE.count("token_refused")
            return self.reply(400, {"error": "invalid_grant", "error_description": why})
        tok = "ya29.fake-" + secrets.token_hex(16)
        STATE.tokens[tok] = now() + STATE.token_ttl
        STATE.count("token_issued")
        return self.reply(200, {"access_token": tok, "expires_in": STATE.token_ttl, "token_type": "Bearer"})

    # -- Compute

    def compute(self, verb, project, rest, query, raw):
        parts = rest.split("/")
        method = None
        if verb == "GET" and len(parts) == 2 and parts[0] == "regions":
            method = "regions.get"
        elif len(parts) == 3 and parts[0] == "zones" and parts[2] == "instances":
            method = {"GET": "instances.list", "POST": "instances.insert"}.get(verb)
        elif len(parts) == 4 and parts[0] == "zones" and parts[2] == "instances":
            method = {"GET": "instances.get", "DELETE": "instances.delete"}.get(verb)
        elif len(parts) == 5 and parts[0] == "zones" and parts[2] == "instances" and parts[4] == "start":
            method = "instances.start" if verb == "POST" else None
        elif verb == "GET" and len(parts) == 4 and parts[0] == "zones" and parts[2] == "operations":
            method = "operations.get"
        if not method:
            return self.reply(404, gce_error(404, "Not Found", "notFound", "NOT_FOUND"))
        STATE.count(method)
        auth = self.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else None
        if not token or STATE.tokens.get(token, 0) < now():
            STATE.count("unauthenticated")
            return self.canned("401", token)
        if project != STATE.project:
            return self.reply(403, gce_error(403, "Required 'compute.projects.get' permission for 'projects/%s'"
                                             % project, "forbidden", "PERMISSION_DENIED"))
        err = self.take_rule(method)
        if err and self.canned(err, token):
            return None
        drop = err == "drop"
        gce_fail = err if err in ("QUOTA_EXCEEDED", "ZONE_RESOURCE_POOL_EXHAUSTED") else None
        code, doc = getattr(self, "m_" + method.replace(".", "_"))(parts, query, raw, gce_fail)
        if drop:
            self.close_connection = True   # the work is done; the answer is lost
            return None
        return self.reply(code, doc)

    def m_regions_get(self, parts, query, raw, fail):
        region = parts[1]
        limits, used = STATE.region_limits(region), STATE.region_usage(region)
        quotas = [{"metric": m, "limit": float(limits[m]), "usage": float(used.get(m, 0))} for m in sorted(limits)]
        return 200, {"kind": "compute#region", "name": region, "status": "UP", "quotas": quotas}

    def m_instances_list(self, parts, query, raw, fail):
        zone = parts[1]
        settle_ops(zone)
        names = sorted(n for (z, n) in STATE.instances if z == zone)
        size = int((query.get("maxResults") or ["500"])[0])
        size = max(1, min(size, int(os.environ.get("FAKE_GCE_PAGE", "500"))))
        start = int((query.get("pageToken") or ["0"])[0])
        doc = {"kind": "compute#instanceList", "items": [STATE.instances[(zone, n)] for n in names[start:start + size]]}
        if start + size < len(names):
            doc["nextPageToken"] = str(start + size)
        if not doc["items"]:
            del doc["items"]
        return 200, doc

    def m_instances_get(self, parts, query, raw, fail):
        zone, name = parts[1], parts[3]
        settle_ops(zone, name, tick=True)
        inst = STATE.instances.get((zone, name))
        if inst is None:
            return 404, gce_error(404, "The resource 'projects/%s/zones/%s/instances/%s' was not found"
                                  % (STATE.project, zone, name), "notFound", "NOT_FOUND")
        return 200, inst

    def m_instances_insert(self, parts, query, raw, fail):
        zone = parts[1]
        STATE.count("insert_attempts")
        body = json.loads(raw or b"{}")
        name = body.get("name", "")
        STATE.inserts_by_name[name] = STATE.inserts_by_name.get(name, 0) + 1
        if (zone, name) in STATE.instances:
            return 409, gce_error(409, "The resource 'projects/%s/zones/%s/instances/%s' already exists"
                                  % (STATE.project, zone, name), "alreadyExists", "ALREADY_EXISTS")
        usage, bad = check_insert(zone, body)
        if bad:
            return bad
        region = zone.rsplit("-", 1)[0]
        metric, limit = quota_refusal(region, usage)
        if fail == "QUOTA_EXCEEDED" and not metric:
            metric = next((m for m in usage if m.startswith("NVIDIA")), "CPUS")
            limit = STATE.region_limits(region).get(metric, 0)
        if metric:
            msg = "Quota '%s' exceeded.  Limit: %.1f in region %s." % (metric, limit, region)
            return 403, gce_error(403, msg, "quotaExceeded", "PERMISSION_DENIED")
        if fail == "ZONE_RESOURCE_POOL_EXHAUSTED" or zone in STATE.exhausted:
            op = new_op("insert", zone, name, ("ZONE_RESOURCE_POOL_EXHAUSTED",
                        "The zone 'projects/%s/zones/%s' does not have enough resources available to fulfill "
                        "the request.  Try a different zone, or try again later." % (STATE.project, zone)))
            return 200, op_doc(op)
        STATE.instances[(zone, name)] = instance_doc(zone, name, body, "PROVISIONING")
        STATE.usage[(zone, name)] = usage
        STATE.count("instances_created")
        return 200, op_doc(new_op("insert", zone, name))

    def m_instances_delete(self, parts, query, raw, fail):
        zone, name = parts[1], parts[3]
        if (zone, name) not in STATE.instances:
            return 404, gce_error(404, "The resource 'projects/%s/zones/%s/instances/%s' was not found"
                                  % (STATE.project, zone, name), "notFound", "NOT_FOUND")
        STATE.count("instances_deleted")
        return 200, op_doc(new_op("delete", zone, name))

    def m_instances_start(self, parts, query, raw, fail):
        zone, name = parts[1], parts[3]
        if (zone, name) not in STATE.instances:
            return 404, gce_error(404, "The resource 'projects/%s/zones/%s/instances/%s' was not found"
                                  % (STATE.project, zone, name), "notFound", "NOT_FOUND")
        return 200, op_doc(new_op("start", zone, name))

    def m_operations_get(self, parts, query, raw, fail):
        op = STATE.ops.get(parts[3])
        if op is None or op["zone"] != parts[1]:
            return 404, gce_error(404, "The resource operation '%s' was not found" % parts[3], "notFound",
                                  "NOT_FOUND")
        if op_status(op) != "DONE":
            op["ticks"] += 1
        return 200, op_doc(op)

    # -- controls

    def control(self, c):
        if "fail_next" in c:
            err = str(c["fail_next"])
            method = c.get("method") or ("instances.insert" if err in ("QUOTA_EXCEEDED",
                                                                       "ZONE_RESOURCE_POOL_EXHAUSTED") else "*")
            STATE.fail_rules.append({"error": err, "method": method, "count": int(c.get("count", 1))})
        for region, lim in (c.get("quotas") or {}).items():
            STATE.limits.setdefault(region, {}).update({k: int(v) for k, v in lim.items()})
        if "token_ttl" in c:
            STATE.token_ttl = int(c["token_ttl"])
        if "op_polls" in c:
            STATE.op_polls = int(c["op_polls"])
        if "exhausted_zones" in c:
            STATE.exhausted = set(c["exhausted_zones"])
        if c.get("revoke_tokens"):
            STATE.tokens.clear()
        if c.get("reset_counters"):
            STATE.counters.clear()
            STATE.inserts_by_name.clear()
        if c.get("clear_failures"):
            STATE.fail_rules = []
        if "remove_instance" in c:
            key = (c["remove_instance"]["zone"], c["remove_instance"]["name"])
            STATE.instances.pop(key, None)
            STATE.usage.pop(key, None)
            halt(key[1])
        if "stop_instance" in c:
            inst = STATE.instances.get((c["stop_instance"]["zone"], c["stop_instance"]["name"]))
            if inst:
                inst["status"] = "TERMINATED"
                halt(inst["name"])
        if "add_instance" in c:
            zone, name = c["add_instance"]["zone"], c["add_instance"]["name"]
            body = {"machineType": "zones/%s/machineTypes/n1-standard-1" % zone}
            STATE.instances[(zone, name)] = instance_doc(zone, name, body, "RUNNING")
            STATE.usage[(zone, name)] = {"CPUS": 1, "INSTANCES": 1}
        return self.reply(200, self.state())

    def state(self):
        insts = []
        for (zone, name), i in sorted(STATE.instances.items()):
            accs = i.get("guestAccelerators") or []
            insts.append({"zone": zone, "name": name, "status": i["status"],
                          "machine_type": i["machineType"].rsplit("/", 1)[1],
                          "accelerator": accs[0]["acceleratorType"].rsplit("/", 1)[1] if accs else None,
                          "accelerator_count": accs[0]["acceleratorCount"] if accs else 0,
                          "local_ssd": sum(1 for d in i.get("disks", []) if d.get("type") == "SCRATCH"),
                          "on_host_maintenance": (i.get("scheduling") or {}).get("onHostMaintenance"),
                          "labels": i.get("labels", {}),
                          "source_image": ((i.get("disks") or [{}])[0].get("initializeParams") or {}).get("sourceImage"),
                          "startup_script": next((m.get("value") for m in (i.get("metadata") or {}).get("items", [])
                                                  if m.get("key") == "startup-script"), None)})
        return {"instances": insts, "instance_count": len(insts), "counters": STATE.counters,
                "inserts_by_name": STATE.inserts_by_name, "fail_rules": STATE.fail_rules,
                "tokens_live": sum(1 for e in STATE.tokens.values() if e >= now()),
                "op_polls": STATE.op_polls,
                "boots": {n: {"pid": b["proc"].pid, "running": b["proc"].poll() is None, "log": b["log"]}
                          for n, b in STATE.boots.items()}}


LOG = None


def client(args):
    """Test-side helper: one control request or one field of the state, in
    one process (shell tests call it often)."""
    import urllib.request
    if args.post is not None:
        req = urllib.request.Request(args.client + "/_control", data=args.post.encode(), method="POST")
    else:
        req = urllib.request.Request(args.client + "/_state")
    doc = json.loads(urllib.request.urlopen(req).read())
    if not args.field:
        return 0
    parts = args.field.split(".")
    if parts[0] == "instance":         # instance.NAME.FIELD
        found = [i for i in doc["instances"] if i["name"] == parts[1]]
        doc = found[0] if found else {}
        parts = parts[2:]
    for p in parts:
        if isinstance(doc, dict) and p in doc:
            doc = doc[p]
        elif p == "len" and isinstance(doc, (list, dict)):
            doc = len(doc)
        else:
            return 0                    # missing: prints nothing
    if doc is None:
        return 0                        # null: prints nothing, as missing
    print(doc if isinstance(doc, str) else json.dumps(doc))
    return 0


def main():
    global STATE, LOG
    ap = argparse.ArgumentParser(description="fake Google Compute Engine + OAuth token endpoint")
    ap.add_argument("--key", help="the service-account key file rigdeck uses")
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    ap.add_argument("--boot-dir", help="run instances' startup scripts, with their files and logs here")
    ap.add_argument("--boot-env", action="append", default=[], metavar="NAME=VALUE",
                    help="an environment variable of every startup script (repeatable)")
    ap.add_argument("--client", metavar="URL", help="act as a test client of a running fake at URL")
    ap.add_argument("--post", metavar="JSON", help="with --client: POST this to /_control")
    ap.add_argument("--field", metavar="PATH", help="with --client: print this field of the state "
                    "(a.b.c, or instance.NAME.FIELD)")
    args = ap.parse_args()
    if args.client:
        sys.exit(client(args))
    if not args.key:
        ap.error("--key is required")
    with open(args.key) as f:
        key = json.load(f)
    STATE = State(key)
    STATE.boot_dir = args.boot_dir
    for kv in args.boot_env:
        k, _, v = kv.partition("=")
        STATE.boot_env[k] = v
    fd, STATE.pubkey = tempfile.mkstemp(suffix=".pub.pem")
    os.close(fd)
    r = subprocess.run(["openssl", "pkey", "-pubout", "-out", STATE.pubkey], input=key["private_key"].encode(),
                       capture_output=True)
    if r.returncode != 0:
        sys.exit("fake_gce: cannot derive the public key: %s" % r.stderr.decode())
    if args.log:
        LOG = open(args.log, "a")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    STATE.port = srv.server_address[1]
    # Assertions must be addressed to this endpoint (the key's token_uri).
    key["token_uri"] = "http://127.0.0.1:%d/token" % STATE.port
    def on_signal(signum, frame):
        raise SystemExit(0)
    signal.signal(signal.SIGTERM, on_signal)
    print(STATE.port, flush=True)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write("%d\n" % STATE.port)
        os.replace(args.port_file + ".tmp", args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        with LOCK:
            halt_all()
        os.unlink(STATE.pubkey)


if __name__ == "__main__":
    main()
