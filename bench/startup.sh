#!/usr/bin/env bash
# Start-up of `paddock run -- /bin/true` under the default policy, side by side in one run with
# bare /bin/true and with bubblewrap giving equivalent isolation (all namespaces, tmpfs root,
# read-only system binds, the project read-write, fresh HOME and /tmp, --proc, --dev).
# Reports medians, the ratio paddock/bwrap, and the peak RSS of paddock (parent + sandbox init).
#
# usage: bench/startup.sh [PADDOCK_BINARY]      (default: build/paddock; needs hyperfine, bwrap)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
paddock=${1:-$here/build/paddock}
runs=${RUNS:-200}
for tool in hyperfine bwrap python3; do
  command -v "$tool" >/dev/null || { echo "startup.sh: needs $tool (scripts/setup.sh installs it)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/paddock-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/project" "$work/home"
cd "$work/project"
export HOME=$work/home

# bubblewrap with the same shape as paddock's default policy.
bw=(bwrap --unshare-all --die-with-parent --new-session --tmpfs /)
for d in /usr /etc /opt /nix/store; do [ -d "$d" ] && bw+=(--ro-bind "$d" "$d"); done
for d in /bin /sbin /lib /lib32 /lib64 /libx32; do
  if [ -L "$d" ]; then bw+=(--symlink "$(readlink "$d")" "$d"); elif [ -d "$d" ]; then bw+=(--ro-bind "$d" "$d"); fi
done
bw+=(--proc /proc --dev /dev --tmpfs /tmp --tmpfs "$HOME" --bind "$PWD" "$PWD" --chdir "$PWD" /bin/true)

"$paddock" run -- /bin/true  # fails loudly here if the sandbox cannot start
"${bw[@]}"

hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/h.json" \
  -n "bare /bin/true" "/bin/true" \
  -n "paddock run" "$paddock run -- /bin/true" \
  -n "bwrap" "${bw[*]}" >/dev/null

rss_kb=$(/usr/bin/time -f %M "$paddock" run -- /bin/true 2>&1 >/dev/null | tail -n1)

python3 - "$work/h.json" "$rss_kb" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
med = {k: v["median"] * 1000 for k, v in res.items()}
print(f"{'command':<16} {'median ms':>10} {'mean ms':>9} {'stddev':>8}")
for k, v in res.items():
    print(f"{k:<16} {v['median']*1000:>10.3f} {v['mean']*1000:>9.3f} {v['stddev']*1000:>8.3f}")
ratio = med["paddock run"] / med["bwrap"]
print(f"ratio paddock/bwrap (medians): {ratio:.2f}  (target <= 0.60)")
print(f"paddock overhead over bare /bin/true: {med['paddock run'] - med['bare /bin/true']:.3f} ms")
rss = int(sys.argv[2])
print(f"peak RSS, paddock parent and sandbox init (GNU time %M): {rss} KiB  (target <= 2048)")
PY
