#!/usr/bin/env python3
"""Benchmarks `paddock mcp` through the real protocol (stdio JSON-RPC, one persistent client).

1. Latency: round trip of execute(python, "print(1)") against the anchor, a fresh bubblewrap
   jail + `python3 -c 'print(1)'` per call, interleaved in the same run. Reports medians and the
   ratio (target: paddock <= 0.25x bubblewrap).
2. Throughput: trivial calls (shell `true`, python `pass`) with N in flight at once, calls/s
   (target: >= 200/s on 2 cores), each against its anchor in the same run: the same interpreter
   started per call with no sandbox at all (`bash -c true`, `python3 -c pass`), N in flight —
   the ceiling a fresh interpreter per call allows on this machine.

usage: bench/mcp_bench.py PADDOCK_BINARY [--calls N] [--concurrency C]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, threading, time

BWRAP = ["bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
         "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
         "--tmpfs", "/workspace", "--chdir", "/workspace", "--unshare-all", "--die-with-parent",
         "--setenv", "HOME", "/workspace", "--setenv", "TMPDIR", "/workspace"]


class Client:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, bufsize=1)
        self.lock = threading.Lock()
        self.next = 0
        self.waiters = {}
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.p.stdout:
            m = json.loads(line)
            if "id" in m and m["id"] in self.waiters:
                ev, box = self.waiters.pop(m["id"])
                box.append(m)
                ev.set()

    def call(self, method, params):
        with self.lock:
            self.next += 1
            i = self.next
            ev, box = threading.Event(), []
            self.waiters[i] = (ev, box)
            self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
            self.p.stdin.flush()
        ev.wait()
        return box[0]

    def execute(self, env, code):
        r = self.call("tools/call", {"name": "execute", "arguments": {"environment": env, "code": code}})
        res = r["result"]
        if res.get("isError"):
            raise RuntimeError(res["content"][0]["text"])
        return res["structuredContent"]["stdout"]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paddock")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--warm", type=int, default=4)
    a = ap.parse_args()

    cfg = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    cfg.write(f"[defaults]\nwarm = {a.warm}\nmax_concurrency = {a.concurrency}\n")
    cfg.close()
    c = Client([a.paddock, "mcp", "--config", cfg.name])
    c.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "bench", "version": "1"}})
    time.sleep(2)  # let the warm pools fill

    # 1. Latency, interleaved so both see the same machine load.
    mcp_ms, bwrap_ms = [], []
    for i in range(a.rounds):
        t = time.perf_counter()
        out = c.execute("python", "print(1)")
        mcp_ms.append((time.perf_counter() - t) * 1000)
        assert out == "1\n", out
        time.sleep(0.05)  # a client thinking between calls; lets the pool refill
        t = time.perf_counter()
        out = subprocess.run(BWRAP + ["python3", "-c", "print(1)"], capture_output=True, text=True).stdout
        bwrap_ms.append((time.perf_counter() - t) * 1000)
        assert out == "1\n", out
        time.sleep(0.05)
    m_med, b_med = statistics.median(mcp_ms), statistics.median(bwrap_ms)
    print(f"latency, execute python print(1), {a.rounds} rounds interleaved:")
    print(f"  paddock mcp (warm pool {a.warm}): median {m_med:6.1f} ms  p90 {sorted(mcp_ms)[int(0.9*len(mcp_ms))]:6.1f} ms")
    print(f"  bwrap + python3 -c per call:     median {b_med:6.1f} ms  p90 {sorted(bwrap_ms)[int(0.9*len(bwrap_ms))]:6.1f} ms")
    print(f"  ratio paddock/bwrap: {m_med / b_med:.2f}x (target <= 0.25x)")

    # 2. Throughput with several calls in flight, and the same interpreter without any sandbox.
    def rate(call):
        done = [0]
        errors = []
        lock = threading.Lock()
        per = a.calls // a.concurrency

        def worker():
            for _ in range(per):
                try:
                    call()
                except Exception as e:  # noqa
                    errors.append(str(e)[:200])
                with lock:
                    done[0] += 1

        time.sleep(2)
        t = time.perf_counter()
        ts = [threading.Thread(target=worker) for _ in range(a.concurrency)]
        for th in ts: th.start()
        for th in ts: th.join()
        note = f"  errors: {len(errors)} {errors[0]}" if errors else ""
        return done[0], done[0] / (time.perf_counter() - t), note

    def bare(argv):
        def call():
            if subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL).returncode != 0:
                raise RuntimeError(f"{argv} failed")
        return call

    for env, code, anchor in (("shell", "true", ["/usr/bin/bash", "-c", "true"]),
                              ("python", "pass", ["/usr/bin/python3", "-c", "pass"])):
        n, per_s, note = rate(lambda: c.execute(env, code))
        _, bare_s, bare_note = rate(bare(anchor))
        print(f"throughput, execute {env} {code!r}, {n} calls, {a.concurrency} in flight: "
              f"{per_s:6.1f} calls/s (target >= 200/s){note}")
        print(f"  anchor, {' '.join(anchor)} per call, no sandbox, {a.concurrency} in flight: "
              f"{bare_s:6.1f} calls/s; paddock reaches {per_s / bare_s:.0%} of it{bare_note}")
    print(f"machine: {os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}")
    c.close()
    os.unlink(cfg.name)


if __name__ == "__main__":
    main()
