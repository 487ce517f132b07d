#!/bin/sh
# test_route_server.sh - the built-in route server of endpoint jobs
# (scripts/route_server.py, execution.md section 6): the real FastAPI app
# under uvicorn on a free loopback port, serving a small model's routes,
# answers real HTTP POSTs: 200 with the function's value as JSON (a dict, a
# list, a string), an optional param's default, a positional route, 422
# for a missing, mistyped or undeclared param, 404 for an unknown path, 405
# for GET, 500 with a one-line JSON detail when the function raises (the
# traceback only in the server's stderr), one access line per request on
# stdout, and SIGTERM stops it.  Start-up refusals (a missing function or
# file, a file outside the code, bad JSON, a default of the wrong type) are
# exit 2 with one stderr line naming the route, and so is a Python with
# pydantic 2 or without fastapi.  Needs no store: it runs on the SQLite
# pass only, and skips where no python3 has fastapi, pydantic 1 and uvicorn.
. tests/batch/lib.sh

SERVER=scripts/route_server.py
: >"$OUT"; : >"$ERR"   # fail() shows them; only the refusals write them

if [ -n "${RIGDECK_TEST_STORE_URL:-}" ]; then
    skip "store-independent: the route server touches no store (runs on the SQLite pass)"
fi
command -v curl >/dev/null 2>&1 || skip "curl is not installed"
# The worker's Python; Debian's python3-fastapi is under /usr/bin/python3,
# which a python3 earlier on PATH (pyenv, a venv) may not see.
PY=""
for p in ${RIGDECK_TEST_PYTHON:-} python3 /usr/bin/python3; do
    if "$p" -c 'import sys, fastapi, pydantic, uvicorn; sys.exit(not pydantic.VERSION.startswith("1."))' \
        >/dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || skip "no python3 here imports fastapi, pydantic 1.x and uvicorn (Debian: python3-fastapi python3-uvicorn)"

SPID=""
stop_server () {
    if [ -n "$SPID" ]; then kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; SPID=""; fi
}
trap 'stop_server; rm -rf "$TMP"' EXIT

# ---- a small model -------------------------------------------------------
CODE=$TMP/model
mkdir -p "$CODE/sub"
cat >"$CODE/predict.py" <<'EOF'
import helper   # the model's own module, found in its code directory

print("predict.py loaded")

def predict(x: float, scale: int = 2):
    return {"y": x * scale, "types": [type(x).__name__, type(scale).__name__], "unit": helper.UNIT}

def ordered(a, b, c=None):
    return [a, b, c]

def greet(name):
    return "hello " + name

def names(json, _private=0):
    return [json, _private]

def boom(msg):
    raise ValueError("bad input: " + msg)
EOF
cat >"$CODE/helper.py" <<'EOF'
# Counts its imports: a route naming this file must reuse the copy
# predict.py imported, not load a second one.
import builtins
builtins.helper_loads = getattr(builtins, "helper_loads", 0) + 1
UNIT = "m"

def loads():
    return builtins.helper_loads
EOF
cat >"$CODE/sub/deep.py" <<'EOF'
from . import util

def flag(v):
    return util.show(v)
EOF
echo 'def show(v): return {"flag": v}' >"$CODE/sub/util.py"
cat >"$TMP/routes.json" <<'EOF'
[{"verb": "POST", "path": "/predict", "file": "predict.py", "function": "predict", "positional": false,
  "params": [{"name": "x", "type": "float", "optional": false, "default": null},
             {"name": "scale", "type": "integer", "optional": true, "default": "3"}]},
 {"verb": "POST", "path": "/ordered", "file": "predict.py", "function": "ordered", "positional": true,
  "params": [{"name": "b", "type": "string", "optional": false, "default": null},
             {"name": "a", "type": "list", "optional": false, "default": null},
             {"name": "c", "type": "object", "optional": true, "default": "None"}]},
 {"verb": "POST", "path": "/greet", "file": "predict.py", "function": "greet", "positional": false,
  "params": [{"name": "name", "type": "string", "optional": false, "default": null}]},
 {"verb": "POST", "path": "/boom", "file": "predict.py", "function": "boom", "positional": false,
  "params": [{"name": "msg", "type": "string", "optional": false, "default": null}]},
 {"verb": "POST", "path": "/names", "file": "predict.py", "function": "names", "positional": false,
  "params": [{"name": "json", "type": "object", "optional": false, "default": null},
             {"name": "_private", "type": "float", "optional": true, "default": "2"}]},
 {"verb": "POST", "path": "/loads", "file": "helper.py", "function": "loads", "params": []},
 {"verb": "POST", "path": "/v1/flag", "file": "sub/deep.py", "function": "flag", "positional": false,
  "params": [{"name": "v", "type": "boolean", "optional": true, "default": "True"}]}]
EOF

# ---- helpers ---------------------------------------------------------------
BODY=$TMP/body
# post PATH [JSON]: the answer's status in $CODE_, its body in $BODY.
post () {
    CODE_=$(curl -s -o "$BODY" -w '%{http_code}' --max-time 60 -X POST -H 'Content-Type: application/json' \
                 ${2:+--data "$2"} "http://127.0.0.1:$PORT$1")
}
# expect_answer STATUS JSON: the last answer, its JSON compared as values.
expect_answer () {
    if [ "$CODE_" = "$1" ] && "$PY" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.loads(sys.argv[2]))' \
                                  "$BODY" "$2" 2>/dev/null; then
        pass
    else
        fail "expected $1 $2, got $CODE_ $(head -c 400 "$BODY")"
    fi
}
# expect_422 NAME TYPE: FastAPI's standard detail for the body's field NAME
# (for the body itself when NAME is -).
expect_422 () {
    if [ "$CODE_" = 422 ] && "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))["detail"]
loc = ["body"] + ([] if sys.argv[2] == "-" else [sys.argv[2]])
sys.exit(not any(e["loc"] == loc and e["type"] == sys.argv[3] for e in d))' "$BODY" "$1" "$2" 2>/dev/null; then
        pass
    else
        fail "expected 422 for body.$1 ($2), got $CODE_ $(head -c 400 "$BODY")"
    fi
}

# ---- serving -----------------------------------------------------------------
case_ "the server starts on a free loopback port and answers"
PORT=$(free_port)
# (without PYTHONUNBUFFERED, which an agent does not set either)
env -u PYTHONUNBUFFERED "$PY" "$SERVER" --routes "$TMP/routes.json" --code "$CODE" --host 127.0.0.1 --port "$PORT" \
    >"$TMP/server.out" 2>"$TMP/server.err" &
SPID=$!
# Poll (a busy machine imports FastAPI slowly) for uvicorn's line saying it
# listens, sending no request yet: the next check reads stdout before any
# access line could have flushed it.
deadline=$(($(date +%s) + 90))
up=0
while [ "$(date +%s)" -lt "$deadline" ]; do
    if ! kill -0 "$SPID" 2>/dev/null; then break; fi
    if grep -q "Uvicorn running on http://127.0.0.1:$PORT" "$TMP/server.err"; then up=1; break; fi
    sleep 0.2
done
if [ "$up" = 1 ]; then pass; else
    fail "the server exited or did not listen within 90 s: $(tail -5 "$TMP/server.err")"
    finish; exit 1
fi
case_ "the model's own prints reach the log when they happen, not at exit"
grep -q '^predict.py loaded$' "$TMP/server.out" && pass || fail "the import-time print is not in stdout yet"
c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 60 "http://127.0.0.1:$PORT/")
[ "$c" = 404 ] && pass || fail "GET / answers '$c', not 404"

case_ "keyword route: 200 with the value as JSON, the optional param's default, types as declared"
post /predict '{"x": 2}'
expect_answer 200 '{"y": 6.0, "types": ["float", "int"], "unit": "m"}'
post /predict '{"x": 1.5, "scale": 4}'
expect_answer 200 '{"y": 6.0, "types": ["float", "int"], "unit": "m"}'

case_ "params named like pydantic's own attributes (json) or private ones (_private) are params too"
post /names '{"json": {"a": 1}}'
expect_answer 200 '[{"a": 1}, 2.0]'
post /names '{"json": {}, "_private": 7}'
expect_answer 200 '[{}, 7.0]'
post /names '{"_private": 7}'
expect_422 json value_error.missing

case_ "positional route: the params in declared order, not the function's names"
post /ordered '{"a": [1, 2], "b": "first"}'
expect_answer 200 '["first", [1, 2], null]'
post /ordered '{"b": "B", "a": [], "c": {"k": 1}}'
expect_answer 200 '["B", [], {"k": 1}]'

case_ "a string value; a file in a subdirectory importing its sibling; no body at all when every param is optional; a module imported once"
post /greet '{"name": "ada"}'
expect_answer 200 '"hello ada"'
post /v1/flag
expect_answer 200 '{"flag": true}'
post /v1/flag '{"v": false}'
expect_answer 200 '{"flag": false}'
post /loads
expect_answer 200 1

case_ "a missing, mistyped or undeclared param is 422 with FastAPI's detail"
post /predict '{}'
expect_422 x value_error.missing
post /predict '{"x": "two"}'
expect_422 x type_error.float
post /predict '{"x": 2, "scale": 1.5}'   # not silently 1
expect_422 scale type_error.integer
post /greet '{"name": 5}'                # not silently "5"
expect_422 name type_error.str
post /v1/flag '{"v": "yes"}'
expect_422 v value_error.strictbool
post /ordered '{"b": "B", "a": {"not": "a list"}}'
expect_422 a type_error.list
post /predict '{"x": 2, "extra": 1}'
expect_422 extra value_error.extra
post /greet                               # no body, and a param is required
expect_422 - value_error.missing

case_ "an unknown path is 404, GET on a route 405"
post /nope '{"x": 1}'
expect_answer 404 '{"detail": "Not Found"}'
post /docs
[ "$CODE_" = 404 ] && pass || fail "/docs answers $CODE_: only the routes should exist"
CODE_=$(curl -s -o "$BODY" -w '%{http_code}' --max-time 60 "http://127.0.0.1:$PORT/predict")
expect_answer 405 '{"detail": "Method Not Allowed"}'

case_ "a raising function is 500 with a JSON detail; its traceback only in stderr"
post /boom '{"msg": "m"}'
expect_answer 500 '{"detail": "ValueError: bad input: m"}'
grep -q Traceback "$BODY" && fail "the traceback reached the client" || pass
grep -q 'raise ValueError("bad input: " + msg)' "$TMP/server.err" && pass ||
    fail "no traceback in the server's stderr: $(tail -5 "$TMP/server.err")"
post /greet '{"name": "again"}'
expect_answer 200 '"hello again"'

case_ "one access line per request on stdout"
grep -q '"POST /predict HTTP/1.1" 200' "$TMP/server.out" && pass || fail "no access line: $(tail -3 "$TMP/server.out")"
grep -q '"POST /boom HTTP/1.1" 500' "$TMP/server.out" && pass || fail "no 500 access line"
grep -q '"GET /predict HTTP/1.1" 405' "$TMP/server.out" && pass || fail "no 405 access line"

case_ "SIGTERM stops the server (the agent's stop)"
kill "$SPID"
deadline=$(($(date +%s) + 60))
while kill -0 "$SPID" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
if kill -0 "$SPID" 2>/dev/null; then fail "still running 60 s after SIGTERM"; else pass; fi
wait "$SPID"; RC=$?; SPID=""
expect_status 0

# ---- start-up refusals -------------------------------------------------------
# refused ROUTES_JSON MESSAGE: exit 2, one stderr line with MESSAGE, and no
# listener (it exits before uvicorn starts; one that serves instead is
# ended by the timeout, exit 124).
refused () {
    printf '%s\n' "$1" >"$TMP/bad.json"
    timeout 60 "$PY" "$SERVER" --routes "$TMP/bad.json" --code "$CODE" --host 127.0.0.1 --port "$(free_port)" \
        >"$OUT" 2>"$ERR"
    RC=$?
    expect_status 2
    expect_err "$2"
    expect_err_lines 1
}
case_ "start-up: a missing function"
refused '[{"path": "/p", "file": "predict.py", "function": "nope", "params": []}]' \
        "endpoint.routes\[0\] (POST /p): function 'nope' not found in predict.py"
case_ "start-up: a missing file, names the route"
refused '[{"path": "/a", "file": "predict.py", "function": "greet", "params": [{"name": "name", "type": "string"}]},
          {"path": "/b", "file": "gone.py", "function": "f", "params": []}]' \
        "endpoint.routes\[1\] (POST /b): file 'gone.py': no such Python file"
case_ "start-up: a file outside the model code"
refused '[{"path": "/p", "file": "../routes.json.py", "function": "f", "params": []}]' "is outside the model code"
case_ "start-up: a routes file that is not JSON"
refused '[{"path": "/p",' "not JSON"
case_ "start-up: a default not of its type"
refused '[{"path": "/p", "file": "predict.py", "function": "predict",
           "params": [{"name": "x", "type": "float"}, {"name": "scale", "type": "integer", "optional": true, "default": "1.5"}]}]' \
        "params\[1\] (scale): default '1.5' is not of type integer"
case_ "start-up: a function that cannot take the declared params"
refused '[{"path": "/p", "file": "predict.py", "function": "predict", "params": [{"name": "z", "type": "float"}]}]' \
        "predict(x: float, scale: int = 2) cannot take the params (z) as keywords"

# A worker's Python without what the server needs: one line, exit 2.
# Stand-in packages earlier on PYTHONPATH play pydantic 2 and a missing
# fastapi.
case_ "start-up: pydantic 2 or no fastapi is one line naming what is needed"
mkdir -p "$TMP/pd2/pydantic" "$TMP/nofa/fastapi"
echo 'VERSION = "2.7.1"' >"$TMP/pd2/pydantic/__init__.py"
echo 'raise ImportError("No module named fastapi", name="fastapi")' >"$TMP/nofa/fastapi/__init__.py"
PYTHONPATH=$TMP/pd2 timeout 60 "$PY" "$SERVER" --routes "$TMP/routes.json" --code "$CODE" --host 127.0.0.1 \
    --port "$(free_port)" >"$OUT" 2>"$ERR"
RC=$?
expect_status 2
expect_err "pydantic 2.7.1: the route server needs pydantic 1.x"
expect_err_lines 1
PYTHONPATH=$TMP/nofa timeout 60 "$PY" "$SERVER" --routes "$TMP/routes.json" --code "$CODE" --host 127.0.0.1 \
    --port "$(free_port)" >"$OUT" 2>"$ERR"
RC=$?
expect_status 2
expect_err "fastapi: the route server needs fastapi, pydantic 1.x and uvicorn"
expect_err_lines 1

finish
