#!/bin/sh
# Built-in environments (execution.md §4, seed 002's multi-version images):
# a new store lists real public images for every framework of the job spec,
# each with the Python it ships; `environment add/list/remove` for
# administering accounts, audited, every refusal one line naming the field
# and the rule with the store unchanged; `job submit` gives a job without
# an image the environment of its framework, version (absent: the newest)
# and Python, or refuses naming what exists; an older store gets the
# defaults once, only when it has none.  Runs on SQLite and on etcd (the
# older-store cases are SQLite only: their fixture is an SQLite file).
. tests/batch/lib.sh

# job_file NAME ENV: a one-worker training job whose environment is ENV.
job_file () {
    cat >"$TMP/$1.yaml" <<EOF
name: $1
type: training
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
workers: {count: 1, commands: ["echo hi"]}
environment: $2
EOF
}
# base_of NAME ENV: submits it; stdout holds the job, $BASE its environment's name
base_of () {
    job_file "$1" "$2"
    rd --output json -c "job submit $TMP/$1.yaml"
    BASE=$(jget environment.base.name 2>/dev/null)
}
check () { if [ "$2" = "$3" ]; then pass; else fail "$1: expected '$3', got '$2'"; fi; }

rd -c "account create alice --plan team" -c "account create olga --plan team --role operator"
expect_status 0

case_ "a new store lists environments of every framework, on real images, with Python 3.8 or 3.9"
rd --output json -c "environment list"
expect_status 0
python3 - "$OUT" <<'PY' && pass || fail "the default environments"
import json, re, sys
items = json.load(open(sys.argv[1]))["items"]
fws = {i["framework"] for i in items}
assert fws == {"deep_learning", "pytorch", "tensorflow", "mxnet"}, fws
for i in items:
    for f in ("name", "image", "framework", "framework_version", "python", "default", "created_at"):
        assert f in i, (i, f)
    assert i["python"] in ("3.8", "3.9"), i
    assert i["default"] is True, i
    assert "rigdeck/" not in i["image"] and ":" in i["image"].split("/")[-1], i   # a real, tagged image
    assert (i["framework_version"] is None) == (i["framework"] == "deep_learning"), i
names = {i["name"]: i for i in items}
assert names["pytorch-1.13-py39"]["image"].endswith("/pytorch-training:1.13.1-gpu-py39-cu117-ubuntu20.04-ec2")
assert names["tensorflow-2.11-py38"]["image"] == "tensorflow/tensorflow:2.11.0-gpu"
assert names["mxnet-1.9.1-py38"]["image"].startswith("nvcr.io/nvidia/mxnet:")
for py in ("3.8", "3.9"):
    assert any(i["framework"] == "deep_learning" and i["python"] == py for i in items), py
PY
rd -c "environment list"
expect_out "^NAME  *FRAMEWORK  *FRAMEWORK_VERSION  *PYTHON  *IMAGE"

case_ "job submit: a job without an image gets its framework's newest environment for its Python"
base_of newest '{python: "3.9", framework: tensorflow}'
expect_status 0
check "tensorflow, python 3.9" "$BASE" tensorflow-2.11-py39
expect_json environment.base.framework_version 2.11.0
expect_json environment.base.image 763104351884.dkr.ecr.us-east-1.amazonaws.com/tensorflow-training:2.11.0-gpu-py39-cu112-ubuntu20.04-ec2
expect_json environment.image null
base_of pinned '{python: "3.9", framework: tensorflow, framework_version: "2.10"}'
check "tensorflow 2.10 (the newest 2.10.x)" "$BASE" tensorflow-2.10-py39
base_of spec '{python: "3.9", framework: pytorch, framework_version: "1.13"}'
check "the job spec's own example" "$BASE" pytorch-1.13-py39
base_of py38 '{python: "3.8", framework: pytorch}'
check "pytorch, python 3.8" "$BASE" pytorch-1.12-py38
base_of dl '{}'
check "no environment section: deep_learning, python 3.9" "$BASE" deep-learning-py39
expect_json environment.base.framework_version null
base_of custom '{image: "nvcr.io/nvidia/pytorch:22.12-py3"}'
expect_status 0
expect_json environment.base null
expect_json environment.image nvcr.io/nvidia/pytorch:22.12-py3

case_ "job submit: no environment matches -> refused, naming what exists for the framework"
before=$(snapshot)
job_file nomatch '{python: "3.9", framework: pytorch, framework_version: "1.9"}'
rd -c "job submit $TMP/nomatch.yaml"
expect_refused 1 "$before" "environment: no environment runs framework pytorch 1.9 with python 3.9; pytorch has .*pytorch-1.13-py39 (1.13.1, python 3.9)"
job_file nopy '{python: "3.9", framework: mxnet}'
rd -c "job submit $TMP/nopy.yaml"
expect_refused 1 "$before" "no environment runs framework mxnet with python 3.9; mxnet has mxnet-1.9.0-py38 (1.9.0, python 3.8), mxnet-1.9.1-py38 (1.9.1, python 3.8)"

case_ "environment add: an administering account adds one; jobs then match it, and its newer version wins"
rd --output json -c "environment add pt2 --image pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime --framework pytorch --framework-version 2.0.1 --python 3.9"
expect_status 0
expect_json name pt2
expect_json default false
expect_json framework_version 2.0.1
base_of pt2job '{python: "3.9", framework: pytorch}'
check "newest pytorch for 3.9 after the add" "$BASE" pt2
PT2JOB=$(jget id)
expect_json environment.base.image pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime
base_of pt113 '{python: "3.9", framework: pytorch, framework_version: "1.13"}'
check "a pinned version still gets its own" "$BASE" pytorch-1.13-py39
rd --output json -c "environment add anypy --image myorg/mxnet:1.9.1-all --framework mxnet --framework-version 1.8.0"
expect_status 0
expect_json python null
base_of anypy '{python: "3.9", framework: mxnet}'
check "an environment without a Python serves any" "$BASE" anypy
rd -c "audit list"
expect_out "environment add pt2 --image pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime"
expect_out "created environment/pt2"

case_ "completion knows environment names"
"$BIN" --complete --store "$STORE" -c "environment remove pytorch-1.1" >"$OUT" 2>"$ERR"; RC=$?
expect_status 0
expect_out "^environment remove pytorch-1.11-py38$"
expect_out "^environment remove pytorch-1.12-py38$"
expect_out "^environment remove pytorch-1.13-py39$"
expect_no_out "tensorflow"

case_ "environment add/remove are for administering accounts; everyone lists"
before=$(snapshot)
rd --as alice -c "environment add x --image ubuntu:22.04"
expect_refused 1 "$before" "administering account"
rd --as olga -c "environment remove pt2"
expect_refused 1 "$before" "administering account"
rd --as alice --output json -c "environment list"
expect_status 0
expect_out '"pt2"'

case_ "bad input: one line naming the field and the rule, the store unchanged"
before=$(snapshot)
rd -c "environment add x --image 'Bad Image'"
expect_refused 1 "$before" "^rigdeck: --image must be a full image name such as .*, got 'Bad Image'$"
rd -c "environment add x --image quay.io/org/img:1"
expect_refused 1 "$before" "--image must come from Docker Hub, AWS ECR (\*.dkr.ecr.\*.amazonaws.com), Azure (\*.azurecr.io), Google Artifact Registry (\*-docker.pkg.dev) or NVIDIA NGC (nvcr.io), got 'quay.io/org/img:1'"
for img in myacct.dkr.ecr.eu-west-1.amazonaws.com/team/img:1 myreg.azurecr.io/img:2 \
           europe-docker.pkg.dev/proj/repo/img:3 nvcr.io/nvidia/tensorflow:22.12-tf2-py3 ubuntu@sha256:$(printf '%064d' 0); do
    V=$((${V:-0} + 1))
    rd -c "environment add reg-$V --image $img --framework tensorflow --framework-version 9.$V --python 3.8"
    expect_status 0
done
before=$(snapshot)
rd -c "environment add Bad --image ubuntu:22.04"
expect_refused 1 "$before" "NAME must be 1-63 characters of a-z"
rd -c "environment add x --image ubuntu:22.04 --framework jax"
expect_refused 1 "$before" "--framework must be one of deep_learning, pytorch, tensorflow, mxnet"
rd -c "environment add x --image ubuntu:22.04 --framework pytorch"
expect_refused 1 "$before" "--framework-version is required for framework pytorch"
rd -c "environment add x --image ubuntu:22.04 --framework-version 1.0"
expect_refused 1 "$before" "--framework-version does not apply to framework deep_learning"
rd -c "environment add x --image ubuntu:22.04 --framework pytorch --framework-version 1.x"
expect_refused 1 "$before" "--framework-version must be a version such as 1.13 or 2.11.0, got '1.x'"
rd -c "environment add x --image ubuntu:22.04 --python 3.10"
expect_refused 1 "$before" "--python must be one of 3.8, 3.9, got '3.10'"
rd -c "environment add x --framework pytorch"
expect_refused 2 "$before" "--image IMAGE is required"

case_ "duplicates are refused: a name, or a framework, version and Python that one serves already"
before=$(snapshot)
rd -c "environment add pt2 --image ubuntu:22.04"
expect_refused 1 "$before" "NAME pt2 must be unique: it is already an environment"
rd -c "environment add again --image pytorch/pytorch:1.13.1-cuda11.6-cudnn8-runtime --framework pytorch --framework-version 1.13.1 --python 3.9"
expect_refused 1 "$before" "environment pytorch-1.13-py39 runs framework pytorch 1.13.1 with python 3.9 already"

case_ "environment remove: later jobs no longer match it; submitted jobs keep their image"
rd -c "environment remove pt2"
expect_status 0
rd --output json -c "job show $PT2JOB"
expect_json environment.base.image pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime
base_of after '{python: "3.9", framework: pytorch}'
check "newest pytorch for 3.9 after the remove" "$BASE" pytorch-1.13-py39
before=$(snapshot)
rd -c "environment remove pt2"
expect_refused 1 "$before" "NAME pt2 is not an environment (see environment list)"
rd -c "audit list"
expect_out "deleted environment/pt2"

case_ "a store whose environments were all removed refuses every job without an image"
rd --output json -c "environment list"
for n in $(jget items | python3 -c 'import json, sys; print(" ".join(i["name"] for i in json.load(sys.stdin)))'); do
    rd -c "environment remove $n"
done
rd --output json -c "environment list"
expect_json items '[]'
before=$(snapshot)
job_file none '{}'
rd -c "job submit $TMP/none.yaml"
expect_refused 1 "$before" "environment: no environment runs framework deep_learning (environment list shows"
rd -c "environment add dl --image horovod/horovod:0.28.1"
expect_status 0
base_of none '{}'
check "a deep_learning environment without a Python" "$BASE" dl

case "$STORE" in
etcd://*) finish; exit ;;
esac

case_ "an older store lists the defaults it will get, and gets them at its first job submit"
OLD=sqlite:$TMP/old.db
sqlite3 "$TMP/old.db" <tests/fixtures/store_v2/store.sql
STORE=$OLD
rd --output json -c "store dump --prefix /rigdeck/environments/"
expect_json items '[]'
rd --output json -c "environment list"
expect_status 0
n=$(jget items | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
[ "$n" -ge 8 ] && pass || fail "an older store lists $n environments"
rd --output json -c "store dump --prefix /rigdeck/environments/"
expect_json items '[]'   # listing wrote nothing
rd --output json -c "store dump --prefix /rigdeck/meta/"
expect_no_out environments_seeded
base_of oldjob '{python: "3.9", framework: pytorch, framework_version: "1.13"}'
expect_status 0
check "the older store's job" "$BASE" pytorch-1.13-py39
rd --output json -c "store dump --prefix /rigdeck/environments/"
n=$(jget items | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
[ "$n" -ge 8 ] && pass || fail "the older store holds $n environments after its first job"
rd --output json -c "store dump --prefix /rigdeck/meta/"
expect_out environments_seeded

case_ "the defaults come once: removed ones stay removed"
rd -c "environment remove deep-learning-py38"
expect_status 0
base_of oldjob2 '{python: "3.9"}'
expect_status 0
rd --output json -c "environment list"
expect_no_out deep-learning-py38

case_ "an older store that has environments of its own gets no defaults"
# a store of this version, made to look older: its defaults removed, one of
# its own, and the mark taken off its meta document
STORE=sqlite:$TMP/old2.db
rd --output json -c "environment list"
for n in $(jget items | python3 -c 'import json, sys; print(" ".join(i["name"] for i in json.load(sys.stdin)))'); do
    rd -c "environment remove $n"
done
rd -c "environment add mine --image myorg/dl:1 --python 3.9"
expect_status 0
python3 - "$TMP/old2.db" <<'PY2' && pass || fail "could not take the mark off"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(v,) = db.execute("SELECT value FROM kv WHERE key = ?", (b"/rigdeck/meta/store",)).fetchone()
doc = json.loads(v)
assert doc.pop("environments_seeded") is True
db.execute("UPDATE kv SET value = ? WHERE key = ?", (json.dumps(doc).encode(), b"/rigdeck/meta/store"))
db.commit()
PY2
rd --output json -c "store dump --prefix /rigdeck/meta/"
expect_no_out environments_seeded
base_of mine '{python: "3.9"}'
check "its own environment" "$BASE" mine
rd --output json -c "environment list"
n=$(jget items | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
check "environments after the upgrade" "$n" 1
rd --output json -c "store dump --prefix /rigdeck/meta/"
expect_out environments_seeded

finish
