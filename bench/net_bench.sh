#!/usr/bin/env bash
# The egress filter against direct loopback, in one run: a 100 MB HTTP download and 500 small
# requests (a new connection each), from a client inside `paddock run`.
#   direct       paddock run --allow-net: the client reaches the server on the host's loopback
#   connect      filtered network, HTTPS_PROXY style: CONNECT through 127.0.0.1:3128
#   proxy        filtered network, HTTP_PROXY style: absolute-URL requests to 127.0.0.1:3128
#   transparent  filtered network, a client that ignores proxy variables (DNS -> 127.77.x.y:80)
# Targets (issue 4): >= 80% of direct throughput for 100 MB, < 1 ms added per request.
# Throughput is the best of 3 downloads; "added" compares median request times (the machine may
# be shared, and medians resist other load). Means and p99 are printed too.
# usage: bench/net_bench.sh [PADDOCK_BIN]   (default: $PADDOCK_BIN, then build/paddock)
set -euo pipefail
cd "$(dirname "$0")/.."
paddock=${1:-${PADDOCK_BIN:-build/paddock}}
bytes=${NET_BENCH_BYTES:-100000000}
requests=${NET_BENCH_REQUESTS:-500}

tmp=$(mktemp -d /tmp/paddock-netbench.XXXXXX)
python3 bench/net_bench.py serve --port-file "$tmp/port" &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")

client=(python3 bench/net_bench.py client --port "$port" --bytes "$bytes" --requests "$requests")
# The test-only --resolve points bench.test at the server; 127.0.0.1 must be allowed explicitly.
filtered=(run --allow-domain bench.test --allow-domain "127.0.0.1:$port" --resolve "bench.test:127.0.0.1:$port" --)

"$paddock" run --allow-net -- "${client[@]}" --mode direct > "$tmp/direct.json"
for mode in connect proxy transparent; do
  "$paddock" "${filtered[@]}" "${client[@]}" --mode "$mode" > "$tmp/$mode.json"
done

python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
direct = json.load(open(d + "/direct.json"))
print(f"{'mode':<12} {'MB/s':>8} {'ratio':>6} {'mean ms':>8} {'p50 ms':>7} {'p99 ms':>7} {'added p50':>10}")
print(f"{'direct':<12} {direct['big_MBps']:8.0f} {1:6.2f} {direct['small_mean_ms']:8.3f} {direct['small_p50_ms']:7.3f} {direct['small_p99_ms']:7.3f} {0:10.3f}")
ok = True
for mode in ("connect", "proxy", "transparent"):
    r = json.load(open(f"{d}/{mode}.json"))
    ratio = r["big_MBps"] / direct["big_MBps"]
    added = r["small_p50_ms"] - direct["small_p50_ms"]
    print(f"{mode:<12} {r['big_MBps']:8.0f} {ratio:6.2f} {r['small_mean_ms']:8.3f} {r['small_p50_ms']:7.3f} {r['small_p99_ms']:7.3f} {added:10.3f}")
    ok = ok and ratio >= 0.8 and added < 1.0
print("targets (>= 0.80 throughput, < 1 ms added):", "met" if ok else "NOT met")
PY
