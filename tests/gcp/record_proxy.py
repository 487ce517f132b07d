#!/usr/bin/env python3
"""record_proxy.py - a loopback stand-in for an HTTP proxy that forwards nothing.

    record_proxy.py --port-file FILE --log FILE

Binds 127.0.0.1 on a free port (written to --port-file).  For every
connection it appends the request line to --log ("POST
http://192.0.2.2:8089/token HTTP/1.1", "CONNECT oauth2.googleapis.com:443
HTTP/1.1") and answers 502.  A test points http_proxy and https_proxy at it
to see which requests would have left the machine, while none does.
"""
import argparse
import os
import socketserver
import threading

LOCK = threading.Lock()


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        line = self.rfile.readline(8192).decode("latin-1").rstrip("\r\n")
        if line:
            with LOCK, open(self.server.log, "a") as f:
                f.write(line + "\n")
        self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


def main():
    ap = argparse.ArgumentParser(description="record request lines sent to a proxy; forward nothing")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    socketserver.ThreadingTCPServer.daemon_threads = True
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    srv.log = args.log
    open(args.log, "a").close()
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
