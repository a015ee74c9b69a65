#!/usr/bin/env bash
# Undo on a tree of 100,000 files (a few KiB each, nested like a repository), on this machine's
# disk, every figure against its anchor in the same run (docs/benchmarks.md):
#   first snapshot vs `cp -a` of the same tree; snapshot after 10 changes vs a full re-hash;
#   restore of those 10 files; store size after 10 sessions of 10 changed files each; and the
#   floor: the bare metadata walk (getdents64 + fstatat, nothing kept) of the same tree.
# usage: bench/undo_bench.sh [BUILD_DIR] [FILES]   (default build, 100000)
set -euo pipefail
build=${1:-build}
files=${2:-100000}
bin=$build/bench/paddock-undo-bench
[ -x "$bin" ] || { echo "undo_bench: build $bin first (ninja -C $build paddock-undo-bench)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/paddock-undo-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/tree
# 100 top directories x 10 subdirectories x N/1000 files; sizes 1-8 KiB.
python3 - "$tree" "$files" <<'PY'
import os, sys, random
root, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
per = max(1, n // 1000)
made = 0
for a in range(100):
    for b in range(10):
        d = os.path.join(root, "d%d" % a, "d%d" % b)
        os.makedirs(d, exist_ok=True)
        for c in range(per):
            if made >= n: break
            with open(os.path.join(d, "f%d.txt" % (c if not (a == b and c == 0) else a)), "wb") as f:
                f.write(os.urandom(random.randint(1, 8) * 1024 // 2).hex().encode()[: random.randint(1024, 8192)])
            made += 1
PY
for i in 0 1 2 3 4 5 6 7 8 9; do echo seed > "$tree/d$i/d$i/f$i.txt"; done
sync
echo "tree: $(find "$tree" -type f | wc -l) files, $(du -sh "$tree" | cut -f1)"
t0=$(date +%s%N); cp -a "$tree" "$work/copy"; sync; t1=$(date +%s%N)
cp_ms=$(( (t1 - t0) / 1000000 ))
rm -rf "$work/copy"
echo "cp_a_ms $cp_ms (with sync)"
# Warm cache: the tree was just written and read.
out=$("$bin" "$tree" "$work/state")
echo "$out"
get() { echo "$out" | awk -v k="$1" '$1==k {print $2}'; }
awk -v a="$(get snapshot_10_changes_ms)" -v b="$(get full_rehash_ms)" -v f="$(get first_snapshot_ms)" -v c="$cp_ms" \
    -v fl="$(get floor_walk_ms)" -v u="$(get snapshot_unchanged_ms)" -v r="$(get restore_10_files_ms)" \
    -v s1="$(get store_bytes_after_first)" -v s10="$(get store_bytes_after_10_sessions)" \
    -v run="$(get undo_run_added_ms)" 'BEGIN {
  printf "ratio full_rehash / snapshot_10_changes: %.1fx\n", b / a
  printf "ratio snapshot_10_changes / floor_walk: %.2f\n", a / fl
  printf "ratio snapshot_unchanged / floor_walk: %.2f\n", u / fl
  printf "ratio restore_10_files / floor_walk: %.3f\n", r / fl
  printf "ratio first_snapshot / cp -a: %.2f\n", f / c
  printf "store growth over 10 sessions of 10 changes: %.1f KiB\n", (s10 - s1) / 1024
  printf "ratio undo_run_added / floor_walk: %.2f (target <= 2.5: two walks)\n", run / fl
}'
