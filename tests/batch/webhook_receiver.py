#!/usr/bin/env python3
"""webhook_receiver.py - a real HTTP receiver for alert webhooks in tests.

    webhook_receiver.py DIR [ok | fail-first N | hang]

Listens on a free loopback port and writes it to DIR/port.  Each POST's
body goes to DIR/NNN.json (in arrival order; a failed answer's body too, as
DIR/NNN.failed) and every request is counted in DIR/requests.
ok: answers 200.  fail-first N: answers 500 to the first N POSTs, then 200.
hang: reads the request and never answers.
"""
import http.server
import os
import sys
import threading
import time

DIR = sys.argv[1]
MODE = sys.argv[2] if len(sys.argv) > 2 else "ok"
FAILS = int(sys.argv[3]) if MODE == "fail-first" else 0
lock = threading.Lock()
seen = [0]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            seen[0] += 1
            n = seen[0]
            with open(os.path.join(DIR, "requests"), "w") as f:
                f.write(str(n))
        if MODE == "hang":
            time.sleep(3600)
            return
        failing = n <= FAILS
        name = os.path.join(DIR, "%03d.%s" % (n, "failed" if failing else "json"))
        with open(name + ".tmp", "wb") as f:
            f.write(body)
        os.rename(name + ".tmp", name)
        self.send_response(500 if failing else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, fmt, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(os.path.join(DIR, "port.tmp"), "w") as f:
    f.write(str(server.server_address[1]))
os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
server.serve_forever()
