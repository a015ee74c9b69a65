#!/usr/bin/env bash
# What the after-run check of a writable tree costs (src/gate/: git repositories, protected
# paths, docs/isolation.md "What a run leaves behind"): `paddock run -- /bin/true` in a project of
# ENTRIES files (100 per directory) against the same in an empty project, in one hyperfine run.
# The anchor is the empty project; the ratio and the difference per 100,000 entries are printed.
#
# usage: bench/guard_bench.sh [PADDOCK_BINARY] [ENTRIES] [RUNS]
set -euo pipefail
paddock=$(realpath "${1:-build/paddock}")
entries=${2:-100000}
runs=${3:-30}
command -v hyperfine >/dev/null || { echo "guard_bench: needs hyperfine" >&2; exit 2; }
command -v jq >/dev/null || { echo "guard_bench: needs jq" >&2; exit 2; }
[ -x "$paddock" ] || { echo "guard_bench: no paddock binary at $paddock" >&2; exit 2; }

work=$(mktemp -d /var/tmp/paddock-guard-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/empty" "$work/big"
dirs=$(( (entries + 99) / 100 ))
for ((i = 0; i < dirs; i++)); do
  mkdir "$work/big/d$i"
  (cd "$work/big/d$i" && touch $(seq -f 'f%g' 0 99))
done

hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/guard.json" \
  -n empty "sh -c 'cd $work/empty && $paddock run --no-pty -- /bin/true'" \
  -n big "sh -c 'cd $work/big && $paddock run --no-pty -- /bin/true'" >&2

jq -r --argjson n "$entries" '
  (.results[] | select(.command == "empty")) as $e |
  (.results[] | select(.command == "big")) as $b |
  "guard_bench: empty \($e.median * 1000 | . * 100 | round / 100) ms, \($n) entries \($b.median * 1000 | . * 100 | round / 100) ms, ratio \($b.median / $e.median | . * 100 | round / 100), \((($b.median - $e.median) * 1000) * 100000 / $n | . * 10 | round / 10) ms per 100,000 entries"
' "$work/guard.json"
