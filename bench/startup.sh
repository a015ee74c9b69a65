#!/usr/bin/env bash
# Start-up of `paddock run -- /bin/true` under the default policy, side by side in one run with
# bare /bin/true and with bubblewrap giving equivalent isolation (all namespaces, tmpfs root,
# read-only system binds, the project read-write, fresh HOME and /tmp, --proc, --dev).
# Reports medians, the ratio paddock/bwrap, and the peak RSS of paddock (parent + sandbox init).
# Also measured, as the kernel's share: bench/floor.cc (built as bench/paddock-floor next to the
# paddock binary), which does only the kernel work this isolation needs and nothing else.
#
# usage: [RUNS=300] [ROUNDS=5] [FLOOR=path] bench/startup.sh [PADDOCK_BINARY]
#        (default: build/paddock; needs hyperfine, bwrap)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
paddock=$(realpath "${1:-$here/build/paddock}")
floor=${FLOOR:-$(dirname "$paddock")/bench/paddock-floor}
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
. "$here/bench/bwrap_like.sh"
bwrap_like "$PWD"
bw=("${BW[@]}")

"$paddock" run -- /bin/true  # fails loudly here if the sandbox cannot start
"${bw[@]}"
if [ -x "$floor" ] && "$floor" /bin/true; then have_floor=1; else
  echo "startup.sh: no kernel floor ($floor missing or failing): measured without it" >&2; have_floor=0
fi

# The machine's background load drifts over a run, so the commands are measured in ROUNDS rounds
# (default 5) of RUNS/ROUNDS runs each, in alternating order, and the ratio is the median of the
# rounds' ratios: paddock and bubblewrap always see the same minute of the machine.
rounds=${ROUNDS:-5}
per=$(( runs / rounds > 10 ? runs / rounds : 10 ))
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order=(paddock bwrap); else order=(bwrap paddock); fi
  args=(-n "bare /bin/true" "/bin/true")
  [ "$have_floor" = 1 ] && args+=(-n "kernel floor" "$floor /bin/true")
  for o in "${order[@]}"; do
    if [ "$o" = paddock ]; then args+=(-n "paddock run" "$paddock run -- /bin/true"); else args+=(-n "bwrap" "${bw[*]}"); fi
  done
  hyperfine -N --warmup 10 --runs "$per" --export-json "$work/h$r.json" "${args[@]}" >/dev/null
done

rss_kb=$(/usr/bin/time -f %M "$paddock" run -- /bin/true 2>&1 >/dev/null | tail -n1)

python3 - "$rss_kb" "$work"/h*.json <<'PY'
import json, statistics, sys
rounds = [{r["command"]: r for r in json.load(open(f))["results"]} for f in sys.argv[2:]]
print(f"{'round':<6} {'bare ms':>8} {'paddock ms':>11} {'bwrap ms':>9} {'ratio':>6}")
floor = "kernel floor" in rounds[0]
ratios, floor_ratios, times = [], [], {"bare /bin/true": [], "paddock run": [], "bwrap": []}
if floor: times["kernel floor"] = []
for i, res in enumerate(rounds, 1):
    med = {k: v["median"] * 1000 for k, v in res.items()}
    for k in times: times[k] += [t * 1000 for t in res[k]["times"]]
    ratios.append(med["paddock run"] / med["bwrap"])
    if floor: floor_ratios.append(med["kernel floor"] / med["bwrap"])
    print(f"{i:<6} {med['bare /bin/true']:>8.3f} {med['paddock run']:>11.3f} {med['bwrap']:>9.3f} {ratios[-1]:>6.2f}"
          + (f"   floor {med['kernel floor']:.3f} ms" if floor else ""))
print(f"{'command':<16} {'median ms':>10} {'mean ms':>9} {'stddev':>8}   (all rounds)")
for k, v in times.items():
    print(f"{k:<16} {statistics.median(v):>10.3f} {statistics.mean(v):>9.3f} {statistics.pstdev(v):>8.3f}")
print(f"ratio paddock/bwrap (median of the rounds' median ratios): {statistics.median(ratios):.2f}  (target <= 0.60)")
if floor:
    print(f"ratio kernel floor/bwrap (the same kernel work and nothing else): {statistics.median(floor_ratios):.2f}")
    print(f"paddock above the kernel floor: {statistics.median(times['paddock run']) - statistics.median(times['kernel floor']):.3f} ms")
print(f"paddock overhead over bare /bin/true: {statistics.median(times['paddock run']) - statistics.median(times['bare /bin/true']):.3f} ms")
rss = int(sys.argv[1])
print(f"peak RSS, paddock parent and sandbox init (GNU time %M): {rss} KiB  (target <= 2048)")
PY
