#!/usr/bin/env bash
# The egress filter against direct loopback, in one run: a 100 MB HTTP download and 500 small
# requests (a new connection each), from a client inside `paddock run`.
#   direct       paddock run --allow-net: the client reaches the server on the host's loopback
#   relay floor  paddock run --allow-net, through bench/relay_floor.cc (built as
#                bench/paddock-relay-floor next to PADDOCK_BIN): the least any relaying proxy does
#                (accept, connect, splice both ways; no protocol, no policy)
#   connect      filtered network, HTTPS_PROXY style: CONNECT through 127.0.0.1:3128
#   proxy        filtered network, HTTP_PROXY style: absolute-URL requests to 127.0.0.1:3128
#   transparent  filtered network, a client that ignores proxy variables (DNS -> 127.77.x.y:80)
# Targets (issue 4): >= 80% of direct throughput for 100 MB, < 1 ms added per request.
# Throughput is the best of 3 downloads; "added" compares median request times (the machine may
# be shared, and medians resist other load). Means and p99 are printed too.
# Then a CPU pass: one 2 GB download per mode, with the machine's busy CPU time (/proc/stat) and
# the client's and the server's own CPU time, per GB. "between" is the rest: the relay and the
# kernel work it causes. Run it on a quiet machine: other load counts as "between".
# usage: bench/net_bench.sh [PADDOCK_BIN]   (default: $PADDOCK_BIN, then build/paddock)
set -euo pipefail
cd "$(dirname "$0")/.."
paddock=${1:-${PADDOCK_BIN:-build/paddock}}
relay_floor=${RELAY_FLOOR:-$(dirname "$paddock")/bench/paddock-relay-floor}
bytes=${NET_BENCH_BYTES:-100000000}
requests=${NET_BENCH_REQUESTS:-500}
cpu_bytes=${NET_BENCH_CPU_BYTES:-2000000000}

tmp=$(mktemp -d /tmp/paddock-netbench.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
wait_for() { for _ in $(seq 50); do [ -s "$1" ] && return; sleep 0.1; done; echo "net_bench.sh: $1 never appeared" >&2; exit 1; }
python3 bench/net_bench.py serve --port-file "$tmp/port" &
pids+=($!)
wait_for "$tmp/port"
port=$(cat "$tmp/port")
modes=(direct)
if [ -x "$relay_floor" ]; then
  "$relay_floor" "$tmp/floor-port" "$port" &
  pids+=($!)
  wait_for "$tmp/floor-port"
  modes+=(floor)
else
  echo "net_bench.sh: no relay floor ($relay_floor missing): measured without it" >&2
fi
modes+=(connect proxy transparent)

# The test-only --resolve points bench.test at the server; 127.0.0.1 must be allowed explicitly.
filtered=(run --allow-domain bench.test --allow-domain "127.0.0.1:$port" --resolve "bench.test:127.0.0.1:$port" --)
client() {  # MODE [client args...]
  local mode=$1
  shift
  case $mode in
    direct) "$paddock" run --allow-net -- python3 bench/net_bench.py client --port "$port" --mode direct "$@" ;;
    floor) "$paddock" run --allow-net -- python3 bench/net_bench.py client --port "$(cat "$tmp/floor-port")" --mode direct "$@" ;;
    *) "$paddock" "${filtered[@]}" python3 bench/net_bench.py client --port "$port" --mode "$mode" "$@" ;;
  esac
}
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }

for mode in "${modes[@]}"; do
  client "$mode" --bytes "$bytes" --requests "$requests" > "$tmp/$mode.json"
done
for mode in "${modes[@]}"; do
  before=$(busy_ticks)
  client "$mode" --bytes "$cpu_bytes" --requests 0 --rounds 1 > "$tmp/$mode.cpu.json"
  echo "$before $(busy_ticks) $(tail -n 1 "$tmp/port.cpu")" > "$tmp/$mode.cpu"
done

python3 - "$tmp" "$(getconf CLK_TCK)" "${modes[@]}" <<'PY'
import json, sys
d, hz, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
names = {"floor": "relay floor"}
res = {m: json.load(open(f"{d}/{m}.json")) for m in modes}
direct = res["direct"]
print(f"{'mode':<12} {'MB/s':>8} {'ratio':>6} {'mean ms':>8} {'p50 ms':>7} {'p99 ms':>7} {'added p50':>10}")
ok = True
for m in modes:
    r = res[m]
    ratio = r["big_MBps"] / direct["big_MBps"]
    added = r["small_p50_ms"] - direct["small_p50_ms"]
    print(f"{names.get(m, m):<12} {r['big_MBps']:8.0f} {ratio:6.2f} {r['small_mean_ms']:8.3f} {r['small_p50_ms']:7.3f} {r['small_p99_ms']:7.3f} {added:10.3f}")
    if m in ("connect", "proxy", "transparent"):
        ok = ok and ratio >= 0.8 and added < 1.0
print("targets (>= 0.80 throughput, < 1 ms added):", "met" if ok else "NOT met")
if "floor" in res:
    print("filter / relay floor throughput: " + ", ".join(
        f"{m} {res[m]['big_MBps'] / res['floor']['big_MBps']:.2f}" for m in ("connect", "proxy", "transparent")))

print()
print(f"CPU seconds per GB, one {json.load(open(f'{d}/direct.cpu.json'))['bytes'] / 1e9:.0f} GB download each")
print(f"{'mode':<12} {'MB/s':>8} {'total':>7} {'client':>7} {'server':>7} {'between':>8}")
for m in modes:
    r = json.load(open(f"{d}/{m}.cpu.json"))
    t0, t1, server = open(f"{d}/{m}.cpu").read().split()
    gb = r["bytes"] / 1e9
    total = (int(t1) - int(t0)) / hz / gb
    client, server = r["big_client_cpu_s"] / gb, float(server) / gb
    print(f"{names.get(m, m):<12} {r['big_MBps']:8.0f} {total:7.3f} {client:7.3f} {server:7.3f} {total - client - server:8.3f}")
PY
