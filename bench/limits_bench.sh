#!/usr/bin/env bash
# Start-up cost of resource limits: `paddock run -- /bin/true` with --memory/--pids/--cpu/--timeout
# against the same command with those limits switched off, in one hyperfine run.
# Target (issue 3): limits add at most 1 ms to the median.
#
# usage: bench/limits_bench.sh [PADDOCK_BINARY] [RUNS]
# Run it as root for the cgroup path (v1 or v2), as a user for the rlimit fallback.
set -euo pipefail
paddock=${1:-build/paddock}
runs=${2:-300}
command -v hyperfine >/dev/null || { echo "limits_bench: needs hyperfine" >&2; exit 2; }
command -v jq >/dev/null || { echo "limits_bench: needs jq" >&2; exit 2; }
[ -x "$paddock" ] || { echo "limits_bench: no paddock binary at $paddock" >&2; exit 2; }

work=$(mktemp -d /var/tmp/paddock-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

# Off: every cgroup-backed limit removed (the profile's defaults included), so no cgroup is made.
off="$paddock run --no-pty --pids unlimited --memory unlimited --cpu unlimited --timeout unlimited -- /bin/true"
# On: the limits a user would set; cgroups where the host allows, rlimits otherwise.
on="$paddock run --no-pty --memory 1G --pids 512 --cpu 2 --timeout 1m --best-effort-limits -- /bin/true"

hyperfine -N --warmup 20 --runs "$runs" --export-json "$work/limits.json" \
  -n "limits off" "$off" -n "limits on" "$on" >&2

jq -r '
  def ms: . * 1000 | . * 1000 | round / 1000;
  (.results[] | select(.command == "limits off")) as $off |
  (.results[] | select(.command == "limits on")) as $on |
  "median off: \($off.median | ms) ms   min off: \($off.min | ms) ms",
  "median on:  \($on.median | ms) ms   min on:  \($on.min | ms) ms",
  "added (median): \(($on.median - $off.median) | ms) ms (target <= 1 ms)",
  "added (min):    \(($on.min - $off.min) | ms) ms",
  "ratio (median): \($on.median / $off.median | . * 1000 | round / 1000)",
  (if ($on.median - $off.median) <= 0.001 then "PASS" else "OVER TARGET (on a loaded machine compare the min too)" end)
' "$work/limits.json"
