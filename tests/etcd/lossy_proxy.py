#!/usr/bin/env python3
"""lossy_proxy.py - an HTTP proxy in front of one etcd member that loses txn replies.

Usage: lossy_proxy.py UPSTREAM_PORT PORT_FILE

Listens on a free loopback port (written to PORT_FILE), relays every request
to 127.0.0.1:UPSTREAM_PORT, and relays the answer back, except for
/v3/kv/txn: that request reaches etcd and is applied, but the connection is
closed before the reply, so the client cannot know whether its txn applied.
That is the hard case for retries (tests/etcd/test_lost_reply.sh).
"""
import socket
import sys
import threading


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        body += chunk
    return head, body


def serve(conn, upstream):
    try:
        req = read_request(conn)
        if req is None:
            return
        head, body = req
        lines = [l for l in head.split(b"\r\n") if not l.lower().startswith(b"connection:")]
        path = lines[0].split(b" ")[1]
        lines.insert(1, b"Connection: close")
        up = socket.create_connection(("127.0.0.1", upstream))
        up.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + body)
        while True:   # relayed as it comes: a watch reply never ends
            chunk = up.recv(65536)
            if not chunk:
                break
            if path != b"/v3/kv/txn":
                conn.sendall(chunk)
        up.close()
    except OSError:
        pass
    finally:
        conn.close()


def main():
    upstream = int(sys.argv[1])
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    with open(sys.argv[2], "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn, upstream), daemon=True).start()


if __name__ == "__main__":
    main()
