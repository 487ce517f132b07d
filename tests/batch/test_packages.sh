#!/bin/sh
# Packages (execution.md §4): a real agent on the process runtime installs a
# job's environment.packages.pip before its command, into a virtual
# environment of the worker (python3 -m venv), from a real package index:
# a PEP 503 "simple" index this test serves on 127.0.0.1 with a wheel it
# builds offline.  The agent's PIP_INDEX_URL (the operator's mirror) reaches
# pip; a job's own PIP_INDEX_URL wins over it.  pip's output is in `job
# logs`, the command imports the package, and the process runtime says once
# that it runs on the host.  A package that is not there fails the worker
# `failed`, reason packages_failed, with pip's error line as its message,
# before the command runs; apt packages cannot go on the host: the same.
# Where podman can run containers, the same prelude in a real container
# (an image imported offline from a busybox root file system with stand-in
# installers): apt, conda, pip in that order, each name one word, and a
# failing installer's error line as the message.  Runs on SQLite and,
# again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

if ! python3 -m venv "$TMP/probe-venv" >/dev/null 2>&1 || [ ! -x "$TMP/probe-venv/bin/pip" ]; then
    skip "python3 -m venv does not work here (Debian: apt-get install python3-venv)"
fi

# A wheel of rdpkg 1.0, built by hand (a zip with its metadata and RECORD),
# under a PEP 503 index: simple/rdpkg/ links it with its sha256.
python3 - "$TMP/index" <<'PY' || { echo "could not build the index" >&2; exit 1; }
import base64, hashlib, os, sys, zipfile
root = sys.argv[1]
os.makedirs(os.path.join(root, "simple", "rdpkg"))
os.makedirs(os.path.join(root, "files"))
files = {
    "rdpkg/__init__.py": b"GREETING = 'rdpkg 1.0 says hello'\n",
    "rdpkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: rdpkg\nVersion: 1.0\nSummary: rigdeck test\n",
    "rdpkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: rigdeck-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
record = "".join("%s,%s,%d\n" % (p, digest(d), len(d)) for p, d in files.items())
record += "rdpkg-1.0.dist-info/RECORD,,\n"
files["rdpkg-1.0.dist-info/RECORD"] = record.encode()
whl = os.path.join(root, "files", "rdpkg-1.0-py3-none-any.whl")
with zipfile.ZipFile(whl, "w", zipfile.ZIP_DEFLATED) as z:
    for p, d in files.items():
        z.writestr(p, d)
sha = hashlib.sha256(open(whl, "rb").read()).hexdigest()
with open(os.path.join(root, "simple", "index.html"), "w") as f:
    f.write('<!DOCTYPE html><html><body><a href="rdpkg/">rdpkg</a></body></html>\n')
with open(os.path.join(root, "simple", "rdpkg", "index.html"), "w") as f:
    f.write('<!DOCTYPE html><html><body><a href="../../files/rdpkg-1.0-py3-none-any.whl#sha256=%s">'
            'rdpkg-1.0-py3-none-any.whl</a></body></html>\n' % sha)
PY

# The index, on a port the system picks; its pid is killed with the daemons.
http_serve "$TMP/index"
PORT=$HTTP_PORT

# pkg_job NAME PACKAGES COMMAND [ENV]: a one-worker job with those packages.
pkg_job () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers:
  count: 1
  commands:
    - |-
      : rdtest-worker-$$; $3
environment:
  python: "3.9"
  framework: pytorch
  packages: $2
  env: ${4:-{\}}
EOF
}

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off"
expect_status 0

case_ "job submit refuses a package that is not a plain name, naming the field"
before=$(snapshot)
pkg_job bad '{pip: ["--index-url=http://evil/"]}' 'true'
rd -c "job submit $TMP/bad.yaml"
expect_refused 1 "$before" "environment.packages.pip\[0\] must be a pip requirement"
pkg_job bad '{pip: ["rdpkg==1.0;touch/tmp/x"]}' 'true'
rd -c "job submit $TMP/bad.yaml"
expect_refused 1 "$before" "environment.packages.pip\[0\] must be a pip requirement"
pkg_job bad '{apt: ["../x.deb"]}' 'true'
rd -c "job submit $TMP/bad.yaml"
expect_refused 1 "$before" "environment.packages.apt\[0\] must be an apt package"
pkg_job bad '{conda: ["https://conda.example/x"]}' 'true'
rd -c "job submit $TMP/bad.yaml"
expect_refused 1 "$before" "environment.packages.conda\[0\] must be a conda package"

case_ "a pip package from the operator's index is installed before the command, which imports it"
export PIP_INDEX_URL="http://127.0.0.1:$PORT/simple/"
export PIP_DISABLE_PIP_VERSION_CHECK=1
start_serve s1 --sched-every 1s
start_agent n1 --inventory $INV/a100x4.yaml
unset PIP_INDEX_URL
pkg_job ok '{pip: ["rdpkg==1.0"]}' 'python -c "import rdpkg, sys; print(rdpkg.GREETING); print(sys.prefix)"'
J=$(submit ok)
wait_json 120 "job show $J" state finished
rd --output json -c "job show $J"
expect_json workers.0.exit_code 0
expect_json workers.0.message ""
rd -c "job logs $J"
expect_status 0
expect_out "^rigdeck: the process runtime runs this worker on the host, .* not in the image .*pytorch-training:1.13.1"
n=$(grep -c "runs this worker on the host" "$OUT")
[ "$n" = 1 ] && pass || fail "the host notice is in the log $n times, want once"
expect_out "^rigdeck: making a virtual environment for pip with python3"
expect_out "^rigdeck: installing pip packages: rdpkg==1.0"
expect_out "127.0.0.1:$PORT"
expect_out "Successfully installed rdpkg-1.0"
expect_out "^rigdeck: packages installed; starting the command$"
expect_out "^rdpkg 1.0 says hello$"
expect_out "/$J/0/.venv$"   # the command ran with the worker's venv first on PATH
python3 - "$OUT" <<'PY' && pass || fail "the log's order"
import sys
t = open(sys.argv[1]).read()
marks = ["runs this worker on the host", "making a virtual environment", "installing pip packages",
         "Successfully installed rdpkg-1.0", "packages installed; starting the command", "rdpkg 1.0 says hello"]
at = [t.find(m) for m in marks]
assert -1 not in at and at == sorted(at), at
PY
grep -q "127.0.0.1 .*GET /simple/rdpkg/" "$TMP/http.log" && pass || fail "pip never asked the local index"

case_ "a package that is not there: failed, packages_failed, pip's error line, the command never runs"
pkg_job missing '{pip: ["rdpkg==1.0", "nosuchpkg==1.0"]}' 'echo command-ran'
J=$(submit missing)
wait_json 120 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.state failed
expect_json workers.0.reason packages_failed
expect_json workers.0.exit_code 86
expect_json workers.0.message "pip: ERROR: No matching distribution found for nosuchpkg==1.0"
got=$(jget workers.0.started_at)
[ "$got" != null ] && pass || fail "a packages failure is the job's own: it ran, started_at is set"
rd -c "job logs $J"
expect_out "^rigdeck: packages_failed: pip: ERROR: No matching distribution found for nosuchpkg==1.0"
expect_no_out "command-ran"

case_ "the job's own PIP_INDEX_URL wins over the agent's"
pkg_job own '{pip: ["rdpkg==1.0"]}' 'echo command-ran' '{PIP_INDEX_URL: "http://127.0.0.1:9/simple/", PIP_RETRIES: "0", PIP_TIMEOUT: "5"}'
J=$(submit own)
wait_json 120 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason packages_failed
rd -c "job logs $J"
expect_out "127.0.0.1:9"
expect_no_out "command-ran"

case_ "apt packages cannot be installed on the host: packages_failed, saying why"
pkg_job apt '{apt: [ffmpeg]}' 'echo command-ran'
J=$(submit apt)
wait_json 60 "job show $J" state failed
rd --output json -c "job show $J"
expect_json workers.0.reason packages_failed
expect_json workers.0.message "apt packages need a container runtime (podman or docker): this node runs its workers with the process runtime, on the host"
rd -c "job logs $J"
expect_no_out "command-ran"

case_ "a job without packages runs as before, with the host notice only"
pkg_job plain '{}' 'echo command-ran; echo "$PATH"'
J=$(submit plain)
wait_json 60 "job show $J" state finished
rd -c "job logs $J"
expect_out "^command-ran$"
expect_out "runs this worker on the host"
expect_no_out "installing"
expect_no_out ".venv"

case_ "in a container (podman): apt, conda, pip run in the image in that order; a failure is packages_failed"
. tests/batch/podman.sh
IMG=docker.io/rigdecktest/packages-$$:1
if ! podman_conf || ! podman_rootfs "$TMP/rootfs" sh tee grep tail cat rm echo printf; then
    echo "  ($PODMAN_WHY: the container case is left out)" >&2
else
    # stand-in installers: each prints its words, one [..] each; pip fails for nosuch*
    for tool in apt-get conda python3; do
        printf '#!/bin/sh\nprintf "fake-%s:"; for a in "$@"; do printf " [%%s]" "$a"; done; echo\n' "$tool" \
            >"$TMP/rootfs/bin/$tool"
        chmod 755 "$TMP/rootfs/bin/$tool"
    done
    printf 'for a in "$@"; do case $a in nosuch*) echo "ERROR: No matching distribution found for $a" >&2; exit 1;; esac; done\n' \
        >>"$TMP/rootfs/bin/python3"
    if ! podman_image "$TMP/rootfs" "$IMG"; then
        echo "  ($PODMAN_WHY: the container case is left out)" >&2
    else
        rd -c "node add dc c1 --minion m-c1 --inventory $INV/cpu.yaml" -c "node maintenance c1 off" \
           -c "price set cpu 0.2" -c "node maintenance n1 on"
        expect_status 0
        start_agent c1 --inventory $INV/cpu.yaml --runtime podman
        cat >"$TMP/ctr.yaml" <<EOF
name: ctr
type: training
resources: {gpu_types: [cpu], cpu_count: 4, max_price: 1, disk_size: 20}
workers: {count: 1, commands: ["echo command-ran-in-container"]}
environment:
  image: $IMG
  packages: {apt: ["libsm6=2:1.2.3"], conda: ["numpy=1.24"], pip: ["uvicorn[standard]", "six>=1.16,<2"]}
EOF
        J=$(submit ctr)
        wait_json 120 "job show $J" state finished
        rd -c "job logs $J"
        expect_no_out "runs this worker on the host"
        expect_out "^fake-apt-get: \[update\]$"
        expect_out "^fake-apt-get: \[install\] \[-y\] \[--no-install-recommends\] \[libsm6=2:1.2.3\]$"
        expect_out "^fake-conda: \[install\] \[-y\] \[numpy=1.24\]$"
        expect_out "^fake-python3: \[-m\] \[pip\] \[install\] \[--disable-pip-version-check\] \[--no-input\] \[uvicorn\[standard\]\] \[six>=1.16,<2\]$"
        expect_out "^command-ran-in-container$"
        python3 - "$OUT" <<'PY2' && pass || fail "the container log's order"
import sys
t = open(sys.argv[1]).read()
at = [t.find(m) for m in ("fake-apt-get: [update]", "fake-conda:", "fake-python3:", "packages installed;", "command-ran")]
assert -1 not in at and at == sorted(at), at
PY2
        sed -i 's/six>=1.16,<2/nosuch==1.0/' "$TMP/ctr.yaml"
        J=$(submit ctr)
        wait_json 120 "job show $J" state failed
        rd --output json -c "job show $J"
        expect_json workers.0.reason packages_failed
        expect_json workers.0.message "pip: ERROR: No matching distribution found for nosuch==1.0"
        rd -c "job logs $J"
        expect_no_out "command-ran-in-container"
    fi
    podman rmi -f "$IMG" >/dev/null 2>&1
fi

finish
