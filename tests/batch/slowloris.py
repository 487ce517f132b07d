#!/usr/bin/env python3
"""slowloris.py - slow HTTP clients for the agent's /metrics endpoint.

    slowloris.py --port PORT --count N --status FILE [--interval S] [--no-reconnect]

Opens N connections to 127.0.0.1:PORT.  Each sends the start of a request
("GET /metrics HTTP/1.1" and a Host line) and then one more header line every
--interval seconds (default 1), never the blank line that ends the headers:
a request that never arrives and a connection that is never idle.  A
connection the server closes is opened again at the next round (unless
--no-reconnect).  After every round FILE holds one JSON object:
{"rounds": R, "open": O, "cut": C} - the rounds done, the connections open
and how many the server has closed so far.  Runs until killed.
"""
import argparse
import json
import os
import select
import socket
import time


def start(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.setblocking(False)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return s


def closed_by_server(s):
    """True when the server ended the stream (readable and EOF, or reset)."""
    try:
        r, _, _ = select.select([s], [], [], 0)
        if not r:
            return False
        return s.recv(4096) == b""
    except OSError:
        return True


def main():
    ap = argparse.ArgumentParser(description="slow HTTP clients that never finish their request")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--status", required=True)
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--no-reconnect", action="store_true")
    args = ap.parse_args()
    conns = [start(args.port) for _ in range(args.count)]
    rounds = cut = 0
    while True:
        time.sleep(args.interval)
        for i, s in enumerate(conns):
            if s is None:
                continue
            gone = closed_by_server(s)
            if not gone:
                try:
                    s.send(b"X-Slow-%d: %d\r\n" % (i, rounds))
                except OSError:
                    gone = True
            if gone:
                cut += 1
                s.close()
                conns[i] = None
                if not args.no_reconnect:
                    try:
                        conns[i] = start(args.port)
                    except OSError:
                        pass
        rounds += 1
        with open(args.status + ".tmp", "w") as f:
            json.dump({"rounds": rounds, "open": sum(s is not None for s in conns), "cut": cut}, f)
        os.replace(args.status + ".tmp", args.status)


if __name__ == "__main__":
    main()
