#!/usr/bin/env python3
"""Server and client for bench/net_bench.sh: a large HTTP download and many small requests,
direct or through paddock's egress filter. Standard library only; loopback only."""
import argparse
import json
import socket
import socketserver
import sys
import threading
import time

CHUNK = 1 << 20


def read_head(sock):
    buf = b""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(4096)
        if not data:
            return None, b""
        buf += data
    head, _, rest = buf.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        head, _ = read_head(self.request)
        if head is None:
            return
        target = head.split(" ")[1]
        if "/big" in target:
            n = int(target.rsplit("=", 1)[1])
            cpu0 = time.thread_time()
            self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % n)
            block = memoryview(b"x" * CHUNK)
            while n > 0:
                k = min(n, CHUNK)
                self.request.sendall(block[:k])
                n -= k
            # This thread's CPU time for the download, for the CPU pass of net_bench.sh.
            with open(self.server.cpu_log, "a") as f:
                f.write("%.6f\n" % (time.thread_time() - cpu0))
        else:
            self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512


def serve(args):
    srv = Server((args.address, 0), Handler)
    srv.cpu_log = args.port_file + ".cpu"
    with open(args.port_file, "w") as f:
        f.write(str(srv.server_address[1]))
    srv.serve_forever()


def open_conn(args, path):
    """A socket on which an HTTP request for `path` can be sent, and the request bytes."""
    if args.mode == "direct":
        s = socket.create_connection((args.server, args.port))
        return s, b"GET %s HTTP/1.1\r\nHost: bench.test\r\n\r\n" % path.encode()
    if args.mode == "transparent":
        s = socket.create_connection((socket.gethostbyname("bench.test"), 80))
        return s, b"GET %s HTTP/1.1\r\nHost: bench.test\r\n\r\n" % path.encode()
    s = socket.create_connection(("127.0.0.1", 3128))
    if args.mode == "connect":
        s.sendall(b"CONNECT bench.test:80 HTTP/1.1\r\nHost: bench.test:80\r\n\r\n")
        head, rest = read_head(s)
        if head is None or " 200 " not in head.split("\r\n")[0] + " ":
            raise SystemExit("CONNECT refused: %r" % head)
        return s, b"GET %s HTTP/1.1\r\nHost: bench.test\r\n\r\n" % path.encode()
    return s, b"GET http://bench.test%s HTTP/1.1\r\nHost: bench.test\r\n\r\n" % path.encode()


def drain(s):
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    total = 0
    while True:
        n = s.recv_into(view)
        if n == 0:
            return total
        total += n


def client(args):
    # Large download: bytes per second, timed from request to EOF; best of --rounds (the machine
    # is shared, so the best round is the one least disturbed by others).
    big_s = big_cpu = None
    for _ in range(args.rounds):
        s, req = open_conn(args, "/big?n=%d" % args.bytes)
        t0 = time.perf_counter()
        c0 = time.process_time()
        s.sendall(req)
        got = drain(s)
        t = time.perf_counter() - t0
        cpu = time.process_time() - c0
        s.close()
        if got < args.bytes:
            raise SystemExit("short download: %d of %d bytes" % (got, args.bytes))
        if big_s is None or t < big_s:
            big_s, big_cpu = t, cpu
    # Small requests: a new connection each (as through the proxy, which closes after one).
    lat = []
    for _ in range(args.requests):
        t0 = time.perf_counter()
        s, req = open_conn(args, "/small")
        s.sendall(req)
        drain(s)
        s.close()
        lat.append(time.perf_counter() - t0)
    lat = sorted(lat) or [0.0]  # --requests 0 (the CPU pass): the download only
    print(json.dumps({
        "mode": args.mode,
        "bytes": got,
        "big_seconds": big_s,
        "big_MBps": got / big_s / 1e6,
        "big_client_cpu_s": big_cpu,
        "requests": args.requests,
        "small_mean_ms": sum(lat) / len(lat) * 1e3,
        "small_p50_ms": lat[len(lat) // 2] * 1e3,
        "small_p99_ms": lat[int(len(lat) * 0.99) - 1] * 1e3,
    }))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    sv = sub.add_parser("serve")
    sv.add_argument("--port-file", required=True, help="also PORT_FILE.cpu: CPU seconds per download")
    sv.add_argument("--address", default="127.0.0.1")
    cl = sub.add_parser("client")
    cl.add_argument("--mode", choices=["direct", "proxy", "connect", "transparent"], required=True)
    cl.add_argument("--port", type=int, default=0)
    cl.add_argument("--server", default="127.0.0.1", help="the server's address, for --mode direct")
    cl.add_argument("--bytes", type=int, default=100 * 1000 * 1000)
    cl.add_argument("--requests", type=int, default=500)
    cl.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    if args.cmd == "serve":
        serve(args)
    else:
        client(args)


if __name__ == "__main__":
    sys.exit(main())
