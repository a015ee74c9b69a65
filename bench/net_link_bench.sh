#!/usr/bin/env bash
# The egress filter against a direct connection over a link of a real network's speed, in one
# run: the server sits in a network namespace this script creates, behind a veth pair whose two
# ends are limited to RATE by tbf (default 1gbit, faster than most registries and git hosts). A
# client inside `paddock run` downloads 100 MB (best of 3) directly (--allow-net) and through the
# filter (CONNECT), and the machine's busy CPU per GB is printed beside each: at link speed the
# filter costs CPU, not throughput. bench/net_bench.sh measures the loopback worst case.
# Needs root (a network namespace, a veth pair, tc) and the tbf qdisc. Addresses: 10.201.0.1/30
# (host end) and 10.201.0.2/30 (server end); the script stops if the host already routes there.
# usage: bench/net_link_bench.sh [PADDOCK_BIN] [RATE]   (default: $PADDOCK_BIN, then build/paddock)
set -euo pipefail
cd "$(dirname "$0")/.."
paddock=${1:-${PADDOCK_BIN:-build/paddock}}
rate=${2:-1gbit}
bytes=${NET_BENCH_BYTES:-100000000}
[ "$(id -u)" = 0 ] || { echo "net_link_bench.sh: needs root (network namespace, veth pair, tc)" >&2; exit 1; }
if ip -4 route show to match 10.201.0.2 | grep -qv '^default'; then
  echo "net_link_bench.sh: the host already routes 10.201.0.2; not touching it" >&2; exit 1
fi

ns=paddock-bench-$$ host_if=pb$$h ns_if=pb$$n
tmp=$(mktemp -d /tmp/paddock-netlink.XXXXXX)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  ip link del "$host_if" 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns"
ip link add "$host_if" type veth peer name "$ns_if" netns "$ns"
ip addr add 10.201.0.1/30 dev "$host_if"
ip link set "$host_if" up
ip -n "$ns" addr add 10.201.0.2/30 dev "$ns_if"
ip -n "$ns" link set "$ns_if" up
ip -n "$ns" link set lo up
tc qdisc add dev "$host_if" root tbf rate "$rate" burst 256k latency 50ms
ip netns exec "$ns" tc qdisc add dev "$ns_if" root tbf rate "$rate" burst 256k latency 50ms

ip netns exec "$ns" python3 bench/net_bench.py serve --address 10.201.0.2 --port-file "$tmp/port" &
server=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
client=(python3 bench/net_bench.py client --port "$port" --bytes "$bytes" --requests 20)
for mode in direct connect; do
  before=$(busy_ticks)
  if [ "$mode" = direct ]; then
    "$paddock" run --allow-net -- "${client[@]}" --server 10.201.0.2 --mode direct > "$tmp/$mode.json"
  else
    # 10.201.0.2 is a private address: allowed explicitly, as the filter requires.
    "$paddock" run --allow-domain bench.test --allow-domain "10.201.0.2:$port" \
      --resolve "bench.test:10.201.0.2:$port" -- "${client[@]}" --mode connect > "$tmp/$mode.json"
  fi
  echo "$before $(busy_ticks)" > "$tmp/$mode.cpu"
done

python3 - "$tmp" "$(getconf CLK_TCK)" "$rate" <<'PY'
import json, sys
d, hz, rate = sys.argv[1], int(sys.argv[2]), sys.argv[3]
direct = json.load(open(d + "/direct.json"))
print(f"link: veth limited to {rate} each way")
print(f"{'mode':<8} {'MB/s':>8} {'ratio':>6} {'p50 ms':>7} {'CPU s/GB':>9}")
for m in ("direct", "connect"):
    r = json.load(open(f"{d}/{m}.json"))
    t0, t1 = map(int, open(f"{d}/{m}.cpu").read().split())
    # Whole run (3 downloads, 20 small requests, start-up): CPU per GB downloaded.
    cpu = (t1 - t0) / hz / (3 * r["bytes"] / 1e9)
    print(f"{m:<8} {r['big_MBps']:8.1f} {r['big_MBps'] / direct['big_MBps']:6.2f} {r['small_p50_ms']:7.3f} {cpu:9.3f}")
PY
