#!/usr/bin/env bash
# Persistent jails (docs/jails.md) on a repository of FILES files (default 100,000, a few bytes
# each, nested like a real tree, committed in git), all in one run:
#   - creating a jail: overlay (nothing copied) against copy (a reflinked or copied private tree)
#     and worktree (`git worktree add`), and against plain `git worktree add` of the same repo;
#   - `paddock jail exec J -- /bin/true` in an existing jail against `paddock run -- /bin/true`
#     in the source (hyperfine, medians, the ratio);
#   - `paddock jail diff` after 10 changed files, for each workspace mode.
# usage: [FILES=100000] [RUNS=30] bench/jail_bench.sh [PADDOCK_BINARY]   (needs hyperfine, jq, git)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
paddock=$(realpath "${1:-$here/build/paddock}")
files=${FILES:-100000}
runs=${RUNS:-30}
for tool in hyperfine jq git; do
  command -v "$tool" >/dev/null || { echo "jail_bench.sh: needs $tool (scripts/setup.sh installs it)" >&2; exit 1; }
done
# On the machine's disk, not a tmpfs: where real repositories live.
work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/paddock-jail-bench.XXXXXX")
export PADDOCK_JAILS_DIR=$work/jails
cleanup() {
  for j in b-overlay b-copy b-worktree; do "$paddock" jail rm "$j" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
repo=$work/repo
mkdir -p "$repo"
echo "making a repository of $files files in $repo ..." >&2
python3 - "$repo" "$files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
per_dir = 100
for i in range(n):
    d = os.path.join(root, "src", f"m{i // (per_dir * 10):03d}", f"d{(i // per_dir) % 10}")
    if i % per_dir == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i % per_dir:03d}.txt"), "w") as f:
        f.write(f"file {i}\n" * 8)
PY
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" -c user.name=bench -c user.email=bench@localhost commit -q -m base
sync

ms() {  # ms COMMAND...: wall milliseconds of one run
  local s e
  s=$(date +%s%N)
  "$@" >/dev/null 2>&1
  e=$(date +%s%N)
  echo $(((e - s) / 1000000))
}
cd "$repo"
t_overlay=$(ms "$paddock" jail create b-overlay --workspace overlay --source "$repo")
t_copy=$(ms "$paddock" jail create b-copy --workspace copy --source "$repo")
t_wt=$(ms "$paddock" jail create b-worktree --workspace worktree --source "$repo")
t_git=$(ms git -C "$repo" worktree add -q "$work/plain-wt" -b plain)
reflinks=$(cp --reflink=always "$repo/src/m000/d0/f000.txt" "$work/reflink-probe" 2>/dev/null && echo yes || echo no)

echo "== create (ms): overlay $t_overlay, copy $t_copy (reflinks on this filesystem: $reflinks), worktree $t_wt, plain git worktree add $t_git"

hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/exec.json" \
  -n "paddock run -- /bin/true" "$paddock run -- /bin/true" \
  -n "jail exec (overlay) -- /bin/true" "$paddock jail exec b-overlay -- /bin/true" \
  -n "jail exec (copy) -- /bin/true" "$paddock jail exec b-copy -- /bin/true" >/dev/null
med() { jq -r --arg n "$1" '.results[] | select(.command == $n) | .median * 1000' "$work/exec.json"; }
run_ms=$(med "paddock run -- /bin/true")
ov_ms=$(med "jail exec (overlay) -- /bin/true")
cp_ms=$(med "jail exec (copy) -- /bin/true")
awk -v r="$run_ms" -v o="$ov_ms" -v c="$cp_ms" 'BEGIN {
  printf "== exec /bin/true (median ms): paddock run %.2f, jail exec overlay %.2f (%.2fx), jail exec copy %.2f (%.2fx)\n", r, o, o / r, c, c / r }'

change10='for i in 0 1 2 3 4 5 6 7 8 9; do echo changed >>src/m00$i/d$i/f00$i.txt; done'
for j in b-overlay b-copy b-worktree; do
  "$paddock" jail exec "$j" --no-diagnostics -- sh -c "$change10" >/dev/null 2>&1
  n=$("$paddock" jail diff "$j" --name-status | wc -l)
  hyperfine -N --warmup 2 --runs 10 --export-json "$work/diff-$j.json" \
    -n names "$paddock jail diff $j --name-status" -n patch "$paddock jail diff $j" >/dev/null
  names=$(jq -r '.results[] | select(.command == "names") | .median * 1000' "$work/diff-$j.json")
  patch=$(jq -r '.results[] | select(.command == "patch") | .median * 1000' "$work/diff-$j.json")
  printf '== jail diff after 10 changes, %s (%s paths): --name-status %.1f ms, patch %.1f ms\n' "${j#b-}" "$n" "$names" "$patch"
done
