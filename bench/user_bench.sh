#!/usr/bin/env bash
# What a user pays, run after run (issue 29), every figure beside its anchor in the same run:
#   1. start-up: `paddock run -- /bin/true` in an empty project against the kernel floor
#      (bench/floor.cc) and bubblewrap with the same isolation (targets: <= 1.10x the floor, never
#      slower than bubblewrap);
#   2. the check after a run: `paddock run -- /bin/true` in a project of 100,000 files (1,000
#      directories of 100) against the same in an empty project (target <= 1.2x), and what the
#      check itself costs against its floor, one stat per directory (bench/check_bench.cc);
#   3. undo run after run: `paddock run --undo` in a tree of 100,000 files (1,000 directories of
#      100, small) where the run changes 10 files, second and later runs, against the same run
#      without --undo; the added cost against the bare metadata walk of the tree
#      (bench/undo_bench.cc --floor; target <= 2.5x: two walks);
#   4. MCP under load through the official SDK client (bench/mcp_sdk_bench.mjs): 40 back-to-back
#      `execute python print(1)` against bubblewrap + python3 -c (target <= 0.35x), and throughput
#      with 8 in flight against the bare interpreter (target >= 60%). Skipped without node and
#      tests/mcp/node_modules (scripts/test-setup.d/mcp.sh).
# Everything runs in a temporary HOME (paddock's state, the undo store, the check's index there).
#
# usage: bench/user_bench.sh [BUILD_DIR] [RUNS]     (default build, 60; needs hyperfine, bwrap, jq)
#   BUILD_DIR holds paddock and bench/{paddock-floor,paddock-check-bench,paddock-undo-bench}
#   (ninja -C build paddock_cli paddock-floor paddock-check-bench paddock-undo-bench).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$here/build}")
runs=${2:-60}
paddock=$build/paddock
for tool in hyperfine bwrap jq python3; do
  command -v "$tool" >/dev/null || { echo "user_bench: needs $tool (scripts/setup.sh installs it)" >&2; exit 2; }
done
for b in "$paddock" "$build/bench/paddock-floor" "$build/bench/paddock-check-bench" "$build/bench/paddock-undo-bench"; do
  [ -x "$b" ] || { echo "user_bench: no $b (build it first)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/var/tmp}/paddock-user-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_STATE_HOME=$work/home/.local/state
unset XDG_CONFIG_HOME
mkdir -p "$HOME" "$work/empty"

# median of hyperfine's JSON result NAME, in ms
med() { jq -r --arg n "$2" '.results[] | select(.command == $n) | .median * 1000' "$1"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
# a tree of 1,000 directories of 100 small files, each file its own content
make_tree() {
  python3 - "$1" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(1000):
    os.makedirs(f"{root}/d{d}")
    for f in range(100):
        with open(f"{root}/d{d}/f{f}", "w") as out:
            out.write(f"{d}/{f}\n")
PY
}
echo "user_bench: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"

# 1. Start-up.
. "$here/bench/bwrap_like.sh"
bwrap_like "$work/empty"
bw=("${BW[@]}")
(cd "$work/empty" && hyperfine -N --warmup 10 --runs $((runs * 2)) --export-json "$work/start.json" \
  -n floor "$build/bench/paddock-floor /bin/true" \
  -n paddock "$paddock run --no-pty -- /bin/true" \
  -n bwrap "${bw[*]}" >/dev/null)
f=$(med "$work/start.json" floor) p=$(med "$work/start.json" paddock) b=$(med "$work/start.json" bwrap)
printf '1. start-up, empty project: paddock %.2f ms, kernel floor %.2f ms, bubblewrap %.2f ms\n' "$p" "$f" "$b"
echo "   ratio paddock/floor: $(ratio "$p" "$f") (target <= 1.10); paddock/bwrap: $(ratio "$p" "$b") (target <= 1.00)"

# 2. The check after a run.
make_tree "$work/big"
sleep 1
(cd "$work/big" && "$paddock" run --no-pty -- /bin/true)  # the first run in a tree writes its index
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/check.json" \
  -n empty "sh -c 'cd $work/empty && exec $paddock run --no-pty -- /bin/true'" \
  -n big "sh -c 'cd $work/big && exec $paddock run --no-pty -- /bin/true'" >/dev/null
e=$(med "$work/check.json" empty) g=$(med "$work/check.json" big)
printf '2. the check after a run: 100,000 files %.2f ms, empty project %.2f ms\n' "$g" "$e"
echo "   ratio: $(ratio "$g" "$e") (target <= 1.20)"
"$build/bench/paddock-check-bench" "$work/big" 30 | sed 's/^/   check_bench: /'

# 3. Undo run after run (its own tree: the check's index and the undo store see the same shape).
make_tree "$work/undo"
# The run: 10 files changed (the script lies in the tree, where the sandbox sees it).
printf 'for i in 0 1 2 3 4 5 6 7 8 9; do echo $$ >> d$i/f$i; done\n' > "$work/undo/change.sh"
sleep 1
(cd "$work/undo" && "$paddock" run --no-pty --undo -- sh change.sh 2>/dev/null)  # the first run: every file read
hyperfine -N --warmup 2 --runs $((runs / 3 > 5 ? runs / 3 : 5)) --export-json "$work/undo.json" \
  -n plain "sh -c 'cd $work/undo && exec $paddock run --no-pty -- sh change.sh'" \
  -n undo "sh -c 'cd $work/undo && exec $paddock run --no-pty --undo -- sh change.sh 2>/dev/null'" >/dev/null
"$build/bench/paddock-undo-bench" "$work/undo" --floor > "$work/floor.txt"
fl=$(awk '$1 == "floor_walk_ms" {print $2}' "$work/floor.txt")
fp=$(awk '$1 == "floor_read_ahead_ms" {print $2}' "$work/floor.txt")
ft=$(awk '$1 == "floor_read_ahead_threads" {print $2}' "$work/floor.txt")
u=$(med "$work/undo.json" undo) pl=$(med "$work/undo.json" plain)
added=$(python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.1f}')" "$u" "$pl")
printf '3. undo, 10 files changed in 100,000, second and later runs: with --undo %.1f ms, without %.1f ms: added %s ms\n' "$u" "$pl" "$added"
echo "   floor (the bare metadata walk of the tree, best of 5): $fl ms; added/floor: $(ratio "$added" "$fl") (target <= 2.50)"
echo "   the same listings on $ft threads (as a snapshot reads them ahead): $fp ms; two of them: $(ratio "$(python3 -c "print(2 * $fp)")" "$fl") of the floor"

# 4. MCP under load.
if command -v node >/dev/null && [ -d "$here/tests/mcp/node_modules/@modelcontextprotocol" ]; then
  echo "4. MCP, official SDK client over stdio:"
  node "$here/bench/mcp_sdk_bench.mjs" "$paddock" 2>/dev/null | sed 's/^/   /'
else
  echo "4. MCP: skipped (needs node and tests/mcp/node_modules: scripts/test-setup.d/mcp.sh)"
fi
echo "user_bench: load average after $(cut -d' ' -f1-3 /proc/loadavg)"
