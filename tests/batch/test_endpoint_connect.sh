#!/bin/sh
# Endpoints (execution.md §6): a real agent on the process runtime
# (--address 127.0.0.1) runs an endpoint job's start_command, a real HTTP
# server (python3 -m http.server) told its port in PORT, on its
# reservation's port; `job connect` gives http://127.0.0.1:PORT/ and no
# token, and a request there is answered by the job's server.  An endpoint
# with routes runs the route server rigdeck ships: here a stand-in
# (RIGDECK_ROUTE_SERVER) that answers every request with the arguments it
# was given and the routes file it was pointed at, which must be the job's
# routes, its model code folder, the address and the port `job connect`
# names.  `job stop` closes the port.  Where scripts/route_server.py and
# FastAPI are there, the real route server, found beside the binary, answers
# a route from a git model's code (200, 422, 404).  Runs on SQLite and,
# again, on etcd.
. tests/batch/lib.sh
. tests/batch/daemons.sh

command -v curl >/dev/null 2>&1 || skip "curl is not installed"

# A port no one listens on now, for the reservation.
FREE=$(free_port)

rd -c "provider enable physical" -c "region create dc --provider physical --storage local --public" \
   -c "price set a100 2.78" -c "account deposit default 1000" \
   -c "node add dc n1 --minion m-1 --inventory $INV/a100x4.yaml" -c "node maintenance n1 off" \
   -c "reservation add dc infer --hostname infer.local --port $FREE"
expect_status 0

mkdir -p "$TMP/www"
echo "served by the job" >"$TMP/www/hello.txt"
# the stand-in route server: its arguments and routes, as JSON, to any POST or GET
cat >"$TMP/route_server.py" <<'EOF'
import http.server, json, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
with open(args["--routes"]) as f:
    routes = json.load(f)
body = json.dumps({"argv": sys.argv[1:], "routes": routes}).encode()
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = answer
print("stand-in route server", flush=True)
http.server.HTTPServer((args["--host"], int(args["--port"])), H).serve_forever()
EOF
export RIGDECK_ROUTE_SERVER="$TMP/route_server.py"

start_serve s1 --sched-every 1s
start_agent n1 --inventory $INV/a100x4.yaml --address 127.0.0.1

case_ "an endpoint's start_command serves on its reservation's port; job connect names it"
cat >"$TMP/ep.yaml" <<EOF
name: ep
type: endpoint
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
endpoint:
  start_command: ': rdtest-worker-$$; cd $TMP/www && exec python3 -m http.server "\$PORT" --bind 127.0.0.1'
environment: {python: "3.9", framework: pytorch}
regional: {reservation: infer}
EOF
J=$(submit ep)
rd --output json -c "job show $J"
expect_json reservation.port "$FREE"
wait_json 120 "job show $J" state running
rd --output json -c "job connect $J"
expect_status 0
expect_json url "http://127.0.0.1:$FREE/"
expect_json host 127.0.0.1
expect_json port "$FREE"
expect_json token null
served () { curl -sf "http://127.0.0.1:$FREE/hello.txt" >"$TMP/got"; }
wait_until 120 served
grep -q "served by the job" "$TMP/got" && pass || fail "the endpoint answered '$(cat "$TMP/got")'"

case_ "job stop closes the endpoint's port"
rd -c "job stop $J"
expect_status 0
wait_json 120 "job show $J" state stopped
closed () { ! curl -s -o /dev/null "http://127.0.0.1:$FREE/"; }
wait_until 60 closed

case_ "an endpoint with routes runs the route server with its routes, model code, address and port"
cat >"$TMP/routes.yaml" <<EOF
name: routes
type: endpoint
resources: {gpu_types: [a100], gpu_count: 1, max_price: 3, disk_size: 50}
endpoint:
  routes:
    - {verb: POST, path: /predict, file: serve.py, function: predict, positional: false,
       params: [{name: image, type: string}, {name: top_k, type: integer, optional: true, default: "5"}]}
environment: {python: "3.9", framework: pytorch, env: {RDTEST_TAG: rdtest-worker-$$}}
EOF
R=$(submit routes)
wait_json 120 "job show $R" state running
rd --output json -c "job connect $R"
expect_status 0
P=$(jget port)
expect_json url "http://127.0.0.1:$P/"
expect_json token null
routed () { curl -sf -X POST -d '{}' "http://127.0.0.1:$P/predict" >"$TMP/routes.json"; }
wait_until 120 routed
python3 - "$TMP/routes.json" "$P" "$R" <<'EOF' && pass || fail "the route server's arguments: $(cat "$TMP/routes.json")"
import json, sys
got = json.load(open(sys.argv[1]))
args = dict(zip(got["argv"][0::2], got["argv"][1::2]))
assert set(args) == {"--routes", "--code", "--host", "--port"}, args
assert args["--host"] == "127.0.0.1" and args["--port"] == sys.argv[2], args
assert args["--code"].endswith("/%s/0/opt/ml/models" % sys.argv[3]), args
r = got["routes"]
assert len(r) == 1 and r[0]["verb"] == "POST" and r[0]["path"] == "/predict" and r[0]["file"] == "serve.py", r
assert r[0]["function"] == "predict" and r[0]["positional"] is False, r
assert r[0]["params"][1] == {"name": "top_k", "type": "integer", "optional": True, "default": "5"}, r
EOF
rd -c "job stop $R"
wait_json 120 "job show $R" state stopped

case_ "routes without a route server: the worker fails start_failed, saying so"
RIGDECK_ROUTE_SERVER="$TMP/missing.py"
kill_daemon "$(agent_pid n1)" TERM
start_agent n1 --inventory $INV/a100x4.yaml --address 127.0.0.1
R=$(submit routes)
wait_json 120 "job show $R" state failed
rd --output json -c "job show $R"
expect_json workers.0.reason start_failed
expect_out "the route server is not installed"

# The real route server (scripts/route_server.py, FastAPI and uvicorn), found
# beside the binary (build/rigdeck -> ../scripts/), on a git model served
# over HTTP: where it or its packages are missing, this case is left out.
# The worker runs the first python3 on the agent's PATH: Debian's
# python3-fastapi is under /usr/bin/python3, which one earlier on PATH
# (pyenv, a venv) may not see, so that one's folder goes first.
PYDIR=""
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import fastapi, pydantic, uvicorn' >/dev/null 2>&1; then PYDIR=$(dirname "$(command -v "$p")"); break; fi
done
if [ -f scripts/route_server.py ] && [ -n "$PYDIR" ] && command -v git >/dev/null 2>&1
then
case_ "the route server beside the binary answers the job's routes from its model's code"
unset RIGDECK_ROUTE_SERVER
kill_daemon "$(agent_pid n1)" TERM
PATH="$PYDIR:$PATH" start_agent n1 --inventory $INV/a100x4.yaml --address 127.0.0.1
git init -q "$TMP/modelsrc"
printf 'def predict(image, top_k=5):\n    return {"image": image, "top_k": top_k}\n' >"$TMP/modelsrc/serve.py"
git -C "$TMP/modelsrc" add serve.py
git -C "$TMP/modelsrc" -c user.name=t -c user.email=t@example.com commit -q -m model
mkdir -p "$TMP/git"
git clone -q --bare "$TMP/modelsrc" "$TMP/git/model.git"
git -C "$TMP/git/model.git" update-server-info
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$TMP/git" >"$TMP/http.log" 2>&1 &
DAEMONS="$DAEMONS $!"
gitport () { GP=$(sed -n 's/^Serving HTTP on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$TMP/http.log"); [ -n "$GP" ]; }
wait_until 30 gitport
gitport
printf 'model: {source: git, location: "http://127.0.0.1:%s/model.git"}\n' "$GP" >>"$TMP/routes.yaml"
R=$(submit routes)
wait_json 120 "job show $R" state running
rd --output json -c "job connect $R"
P=$(jget port)
answered () { curl -sf -X POST -H 'Content-Type: application/json' -d '{"image": "cat.png"}' \
                  "http://127.0.0.1:$P/predict" >"$TMP/answer"; }
wait_until 120 answered
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == {"image": "cat.png", "top_k": 5}' "$TMP/answer" &&
    pass || fail "/predict answered $(cat "$TMP/answer")"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d '{}' \
       "http://127.0.0.1:$P/predict")
[ "$code" = 422 ] && pass || fail "a missing param: HTTP $code, not 422"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{}' "http://127.0.0.1:$P/nowhere")
[ "$code" = 404 ] && pass || fail "an unknown path: HTTP $code, not 404"
rd -c "job stop $R"
wait_json 120 "job show $R" state stopped
fi

finish
