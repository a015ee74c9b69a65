#!/usr/bin/env bash
# Persistent jails (docs/jails.md) end to end, through the paddock binary, as root or as the
# unprivileged test user (scripts/test-user.sh creates it).
# usage: tests/jail/run.sh root|unprivileged|current PADDOCK_BINARY
#
# For each workspace mode (host, copy, overlay, worktree) and each HOME mode (stable, temporary): make a
# jail of a fresh git repository, run a command in it that edits, deletes, renames a file and a
# directory, makes a symlink, writes in HOME and commits in git; check the source is untouched
# (copy, worktree), the diff, a patch that applies to the source, a branch (worktree) or an
# apply (copy), runtime.json, that a stable HOME is kept and a temporary one is not, and that the
# jail's metadata is out of the sandbox's reach. Then --apply refused over a changed source, the
# bubblewrap backend for real, paddock run in a linked git worktree, a hostile run (planted
# symlink, a HOME made writable by others), bad names, a damaged runtime.json, the size cap, two
# execs at once with rm refused meanwhile, and prune. A failure names the case.
set -euo pipefail
who=${1:-} paddock_bin=${2:-}
if [ -z "$who" ] || [ -z "$paddock_bin" ]; then echo "usage: run.sh root|unprivileged|current PADDOCK_BINARY" >&2; exit 2; fi

if [ "$who" = __inner ]; then
  P=$(cd "$(dirname "$paddock_bin")" && pwd)/$(basename "$paddock_bin")
  failures=0 checks=0
  fail() { echo "FAIL [$tc] $*"; failures=$((failures + 1)); }
  ok() { checks=$((checks + 1)); }
  expect() {  # expect DESCRIPTION COMMAND...: the command must succeed
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then ok; else fail "$what"; fi
  }
  expect_not() {
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then fail "$what"; else ok; fi
  }
  work=$(mktemp -d "${TMPDIR:-/tmp}/paddock-jail-test.XXXXXX")
  prefix=t$$
  jails=()
  cleanup() {
    for j in "${jails[@]}"; do "$P" jail rm "$j" >/dev/null 2>&1 || true; done
    chmod -R u+rwx "$work" 2>/dev/null || true
    rm -rf "$work"
  }
  trap cleanup EXIT
  export GIT_AUTHOR_NAME=jail-test GIT_AUTHOR_EMAIL=jail@test GIT_COMMITTER_NAME=jail-test GIT_COMMITTER_EMAIL=jail@test
  gitenv=(--env GIT_AUTHOR_NAME --env GIT_AUTHOR_EMAIL --env GIT_COMMITTER_NAME --env GIT_COMMITTER_EMAIL)
  make_source() {  # make_source DIR: a git repository with one commit
    mkdir -p "$1/dir" "$1/sub"
    echo alpha >"$1/a.txt"; echo beta >"$1/dir/b.txt"; echo gamma >"$1/c.txt"; echo s >"$1/sub/s.txt"
    printf '#!/bin/sh\necho run\n' >"$1/run.sh"; chmod 755 "$1/run.sh"
    git -C "$1" init -q -b main
    git -C "$1" add -A
    git -C "$1" commit -q -m base
  }
  # The command each jail runs: every kind of change, and a git commit where there is a repository.
  edit='set -e
echo ALPHA >a.txt
rm dir/b.txt
mv c.txt c2.txt
mv sub sub2
ln -s a.txt link
echo kept >"$HOME/homefile"
git add -A
git commit -q -m "from the jail"
git log --oneline | wc -l >commits'
  # Copy and worktree only read this back from the diff; host writes it into the source.
  expected_diff='A c2.txt
A commits
D c.txt
D dir/b.txt
D sub/s.txt
A link
M a.txt
A sub2/s.txt'

  for ws in host copy overlay worktree; do
    for home in stable temporary; do
      tc=$ws/$home
      name=$prefix-$ws-$home
      src=$work/src-$ws-$home
      make_source "$src"
      base=$(git -C "$src" rev-parse HEAD)
      if ! "$P" jail create "$name" --workspace "$ws" --home "$home" --source "$src" 2>"$work/err"; then
        fail "create: $(cat "$work/err")"; continue
      fi
      jails+=("$name")
      show=$("$P" jail show "$name" --json)
      root=$(printf '%s' "$show" | sed -n 's/^  "jail_root": "\(.*\)",$/\1/p')
      [ -n "$root" ] && ok || fail "show has no jail_root: $show"
      for field in '"format": "paddock.jail/1"' "\"mode\": \"$ws\"" "\"mode\": \"$home\"" '"backend": "native"' \
                   '"created":' '"last_used":' '"profile": "default"' "\"root\": \"$root/home\""; do
        case "$show" in *"$field"*) ok ;; *) fail "runtime.json lacks $field: $show" ;; esac
      done
      [ -f "$root/runtime/runtime.json" ] && ok || fail "no $root/runtime/runtime.json"
      if [ "$(stat -c %a "$root")" = 700 ]; then ok; else fail "jail root mode $(stat -c %a "$root")"; fi
      # The command: every kind of change.
      if ! "$P" jail exec "$name" "${gitenv[@]}" -- sh -c "$edit" >"$work/out" 2>&1; then
        fail "exec: $(cat "$work/out")"; continue
      fi
      wsroot=$(printf '%s' "$show" | sed -n '/"workspace"/,/}/s/^    "root": "\(.*\)"$/\1/p')
      # The jail's metadata is out of reach inside, and the real HOME is not the jail's.
      if "$P" jail exec "$name" -- sh -c "cat '$root/runtime/runtime.json'" >/dev/null 2>&1; then
        fail "runtime.json readable inside the jail"
      else ok; fi
      if "$P" jail exec "$name" -- sh -c "echo x >'$root/runtime/planted'" >/dev/null 2>&1 || [ -e "$root/runtime/planted" ]; then
        fail "the runtime directory is writable inside the jail"
      else ok; fi
      # HOME: stable keeps it, temporary does not.
      if "$P" jail exec "$name" -- sh -c 'cat "$HOME/homefile"' >"$work/home" 2>/dev/null; then
        [ "$home" = stable ] && ok || fail "a temporary HOME kept homefile"
      else
        [ "$home" = temporary ] && ok || fail "a stable HOME lost homefile"
      fi
      [ "$home" = stable ] && { [ -f "$root/home/homefile" ] && ok || fail "homefile not in $root/home"; }
      [ -e "$HOME/homefile" ] && fail "the jail wrote the real HOME" || ok
      if [ "$ws" = host ]; then
        # The source itself is the workspace.
        [ "$(cat "$src/a.txt")" = ALPHA ] && ok || fail "host: a.txt not edited in the source"
        [ -L "$src/link" ] && ok || fail "host: no symlink in the source"
        [ "$(git -C "$src" log --oneline | wc -l)" = 2 ] && ok || fail "host: no commit in the source"
        expect_not "host: diff must say there is nothing to compare" "$P" jail diff "$name"
        continue
      fi
      # The source is untouched until sync.
      [ "$(cat "$src/a.txt")" = alpha ] && ok || fail "the source's a.txt changed before sync"
      [ -f "$src/dir/b.txt" ] && [ -f "$src/c.txt" ] && [ -d "$src/sub" ] && [ ! -e "$src/link" ] && ok ||
        fail "the source's files changed before sync"
      [ "$(git -C "$src" rev-parse main)" = "$base" ] && ok || fail "the source's main moved"
      [ -z "$(git -C "$src" status --porcelain)" ] && ok || fail "the source's work tree changed: $(git -C "$src" status --porcelain)"
      # overlay: rename(2) of a directory from the source fails with EXDEV (docs/jails.md), which
      # mv handled above by copying.
      if [ "$ws" = overlay ] && command -v perl >/dev/null; then
        got=$("$P" jail exec "$name" --no-diagnostics -- perl -e 'rename("dir", "dir3") or print "$!"' 2>/dev/null || true)
        [ "$got" = "Invalid cross-device link" ] && ok || fail "overlay: rename of a source directory gave '$got'"
      fi
      # In the workspace: the edits and the commit (an overlay's are in its upper directory).
      [ "$ws" = overlay ] && wsroot=$(dirname "$wsroot")/upper
      [ "$(cat "$wsroot/a.txt")" = ALPHA ] && [ -L "$wsroot/link" ] && [ -d "$wsroot/sub2" ] && ok ||
        fail "the workspace lacks the edits"
      [ "$(cat "$wsroot/commits" | tr -d ' ')" = 2 ] && ok || fail "git commit inside: $(cat "$wsroot/commits" 2>&1)"
      # diff
      if "$P" jail diff "$name" --name-status >"$work/diff" 2>"$work/err"; then
        got=$(awk '{print $1" "$2}' "$work/diff" | sort)
        want=$(printf '%s\n' "$expected_diff" | sort)
        [ "$got" = "$want" ] && ok || fail "diff: got
$got
want
$want"
      else
        fail "diff: $(cat "$work/err")"
      fi
      # A patch that applies to the source as it was.
      if "$P" jail sync "$name" --patch "$work/p-$ws-$home.patch" 2>"$work/err"; then
        git clone -q "$src" "$work/clone-$ws-$home"
        if git -C "$work/clone-$ws-$home" apply --check "$work/p-$ws-$home.patch" 2>"$work/err"; then ok
        else fail "the patch does not apply: $(cat "$work/err")"; fi
      else
        fail "sync --patch: $(cat "$work/err")"
      fi
      # A branch in the source repository, every mode but host (the source itself).
      if "$P" jail sync "$name" --to-branch "published-$home" 2>"$work/err"; then
        [ "$(git -C "$src" show "published-$home:a.txt")" = ALPHA ] && ok || fail "the branch lacks a.txt"
        git -C "$src" cat-file -e "published-$home:commits" && ok || fail "the branch lacks the uncommitted file"
        git -C "$src" cat-file -e "published-$home:c.txt" 2>/dev/null && fail "the branch still has c.txt" || ok
        [ "$(git -C "$src" cat-file -p "published-$home:link")" = "$(readlink "$wsroot/link")" ] && ok ||
          fail "the branch's link is not the jail's symlink"
        [ "$(git -C "$src" rev-parse "published-$home^")" = "$(git -C "$src" rev-parse main)" ] || [ "$ws" = worktree ] && ok ||
          fail "the branch is not on top of the source's HEAD"
        [ -z "$(git -C "$src" status --porcelain)" ] && ok || fail "--to-branch touched the source's work tree"
        [ "$(git -C "$src" rev-parse main)" = "$base" ] && ok || fail "--to-branch moved main"
      else
        fail "sync --to-branch: $(cat "$work/err")"
      fi
      # Applied to the source's files.
      if "$P" jail sync "$name" --apply >"$work/out" 2>"$work/err"; then
        [ "$(cat "$src/a.txt")" = ALPHA ] && [ ! -e "$src/c.txt" ] && [ -f "$src/c2.txt" ] && [ -L "$src/link" ] &&
          [ -f "$src/sub2/s.txt" ] && [ ! -e "$src/dir/b.txt" ] && ok || fail "sync --apply: the source lacks the changes"
        [ "$(git -C "$src" rev-parse main)" = "$base" ] && ok || fail "sync --apply moved main"
      else
        fail "sync --apply: $(cat "$work/err")"
      fi
    done
  done

  # rm of a worktree jail unregisters the worktree and keeps its branch (it may hold the work).
  tc=worktree-rm
  name=$prefix-worktree-stable
  if "$P" jail rm "$name" >/dev/null 2>&1; then
    git -C "$work/src-worktree-stable" worktree list | grep -q "$name" && fail "the worktree is still registered" || ok
    git -C "$work/src-worktree-stable" rev-parse --verify -q "paddock/$name" >/dev/null && ok || fail "rm deleted the branch"
  else
    fail "rm"
  fi

  # --apply refuses when the source changed underneath, and lists the file.
  tc=apply-refused
  src=$work/src-refused; make_source "$src"
  for ws in copy overlay worktree; do
    name=$prefix-refused-$ws
    "$P" jail create "$name" --workspace "$ws" --source "$src" 2>/dev/null && jails+=("$name") || fail "create $ws"
    "$P" jail exec "$name" -- sh -c 'echo jail >a.txt' >/dev/null 2>&1 || fail "exec $ws"
  done
  echo user >"$src/a.txt"
  for ws in copy overlay worktree; do
    if "$P" jail sync "$prefix-refused-$ws" --apply >/dev/null 2>"$work/err"; then
      fail "$ws: --apply over a changed source succeeded"
    else
      grep -q 'a.txt' "$work/err" && ok || fail "$ws: the refusal does not list a.txt: $(cat "$work/err")"
    fi
    [ "$(cat "$src/a.txt")" = user ] && ok || fail "$ws: the user's edit was overwritten"
  done

  # The bubblewrap backend runs the same jail: the workspace and the stable HOME, for real.
  tc=bubblewrap
  if command -v bwrap >/dev/null; then
    name=$prefix-bwrap
    "$P" jail create "$name" --workspace copy --source "$work/src-refused" 2>/dev/null && jails+=("$name")
    expect "exec --backend bubblewrap" "$P" jail exec "$name" --backend bubblewrap -- sh -c 'echo bw >bw.txt; echo h >"$HOME/h"'
    out=$("$P" jail exec "$name" --backend bubblewrap -- sh -c 'cat bw.txt "$HOME/h"; echo "$PADDOCK_JAIL"' 2>/dev/null || true)
    [ "$out" = "bw
h
$name" ] && ok || fail "bubblewrap: workspace, HOME or PADDOCK_JAIL wrong: $out"
    root=$("$P" jail show "$name" --json | sed -n 's/^  "jail_root": "\(.*\)",$/\1/p')
    "$P" jail exec "$name" --backend bubblewrap -- cat "$root/runtime/runtime.json" >/dev/null 2>&1 &&
      fail "bubblewrap: runtime.json readable inside" || ok
    [ "$("$P" jail diff "$name" --name-status 2>/dev/null)" = "A bw.txt" ] && ok || fail "bubblewrap: diff"
    expect_not "an unknown backend is refused" "$P" jail exec "$name" --backend nope -- true
  else
    echo "SKIP [bubblewrap] bwrap is not installed (scripts/setup.sh installs the Debian package bubblewrap)"
  fi

  # paddock run in a linked git worktree: git works, hooks and config stay read-only.
  tc=run-linked-worktree
  src=$work/src-linked; make_source "$src"
  git -C "$src" worktree add -q "$work/linked" -b linked
  if (cd "$work/linked" && "$P" run --no-diagnostics "${gitenv[@]}" -- sh -c 'echo q >q && git add q && git commit -q -m wt') >/dev/null 2>"$work/err"; then
    [ "$(git -C "$src" log --format=%s -1 linked)" = wt ] && ok || fail "the commit is not on the branch"
  else
    fail "commit in a linked worktree: $(cat "$work/err")"
  fi
  (cd "$work/linked" && "$P" run --no-diagnostics -- sh -c "echo x >>'$src/.git/config'; echo y >'$src/.git/hooks/post-commit'") >/dev/null 2>&1 || true
  grep -q '^x$' "$src/.git/config" && fail "config writable from a linked worktree" || ok
  [ -e "$src/.git/hooks/post-commit" ] && fail "hooks writable from a linked worktree" || ok

  # What a run can do to its own jail's roots: make its HOME writable by others (the next exec
  # refuses the root), plant a symlink to a host file in the workspace (sync copies the link,
  # never the file it names; rm leaves the file alone).
  tc=hostile-run
  name=$prefix-hostile
  victim=$work/victim; echo precious >"$victim"
  src=$work/src-hostile; make_source "$src"
  "$P" jail create "$name" --workspace copy --source "$src" 2>/dev/null && jails+=("$name")
  "$P" jail exec "$name" -- ln -s "$victim" planted >/dev/null 2>&1 || fail "exec ln -s"
  "$P" jail sync "$name" --apply >/dev/null 2>&1 || fail "sync --apply"
  [ -L "$src/planted" ] && [ "$(readlink "$src/planted")" = "$victim" ] && ok || fail "sync did not copy the link as a link"
  "$P" jail exec "$name" -- sh -c 'chmod 777 "$HOME"' >/dev/null 2>&1 || fail "exec chmod"
  if "$P" jail exec "$name" -- true 2>"$work/err"; then fail "exec into a HOME others can write ran"
  else grep -q "can be written by other users" "$work/err" && ok || fail "no refusal message: $(cat "$work/err")"; fi
  expect "rm of a jail with a planted symlink" "$P" jail rm "$name"
  [ "$(cat "$victim")" = precious ] && ok || fail "rm followed the planted symlink"

  # Bad names.
  tc=names
  for bad in 'a/b' '..' "$(printf 'x%.0s' $(seq 65))" "$(printf 'a\033b')" '-x'; do
    if "$P" jail create "$bad" --source "$work/src-refused" >/dev/null 2>"$work/err"; then
      fail "the name '$bad' was accepted"; "$P" jail rm "$bad" >/dev/null 2>&1 || true
    else ok; fi
  done
  grep -q $'\033' "$work/err" && fail "a control byte was echoed raw" || ok

  # A damaged runtime.json: an error naming the file and offering rm, and rm works.
  tc=damaged
  name=$prefix-damaged
  "$P" jail create "$name" --workspace host --source "$work/src-refused" 2>/dev/null && jails+=("$name")
  root=$("$P" jail show "$name" --json | sed -n 's/^  "jail_root": "\(.*\)",$/\1/p')
  echo '{ broken' >"$root/runtime/runtime.json"
  if "$P" jail exec "$name" -- true 2>"$work/err"; then fail "exec in a damaged jail succeeded"; fi
  grep -q "$root/runtime/runtime.json" "$work/err" && grep -q "paddock jail rm $name" "$work/err" && ok ||
    fail "the error does not name the file and offer rm: $(cat "$work/err")"
  expect "rm of a damaged jail" "$P" jail rm "$name"
  [ ! -e "$root" ] && ok || fail "rm left $root"

  # The size cap is checked before each exec.
  tc=quota
  name=$prefix-quota
  "$P" jail create "$name" --workspace copy --source "$work/src-refused" --max-size 1M 2>/dev/null && jails+=("$name")
  expect "exec under the cap" "$P" jail exec "$name" -- sh -c 'head -c 2000000 /dev/zero >big'
  if "$P" jail exec "$name" -- true 2>"$work/err"; then fail "exec over the cap ran"
  else grep -q "over its size cap" "$work/err" && ok || fail "no size-cap message: $(cat "$work/err")"; fi

  # Two execs at once in one jail; rm refused while one runs.
  tc=concurrent
  name=$prefix-conc
  "$P" jail create "$name" --workspace copy --source "$work/src-refused" 2>/dev/null && jails+=("$name")
  "$P" jail exec "$name" -- sh -c 'sleep 1; echo one >one' >/dev/null 2>&1 &
  p1=$!
  "$P" jail exec "$name" -- sh -c 'sleep 1; echo two >two' >/dev/null 2>&1 &
  p2=$!
  sleep 0.3
  if "$P" jail rm "$name" 2>"$work/err"; then fail "rm succeeded while a command ran"
  else grep -q "in use" "$work/err" && ok || fail "rm refusal: $(cat "$work/err")"; fi
  wait "$p1" && wait "$p2" && ok || fail "one of two concurrent execs failed"
  wsroot=$("$P" jail show "$name" --json | sed -n '/"workspace"/,/}/s/^    "root": "\(.*\)"$/\1/p')
  [ -f "$wsroot/one" ] && [ -f "$wsroot/two" ] && ok || fail "a concurrent exec's write is missing"

  # prune: by age (none is old) and by total size (the least recently used go first), in a
  # store of its own (prune looks at every jail of the store, and this may be someone's machine).
  tc=prune
  export PADDOCK_JAILS_DIR=$work/prune-store
  for j in a b c; do
    "$P" jail create "$prefix-prune-$j" --workspace copy --source "$work/src-refused" 2>/dev/null || fail "create prune-$j"
    sleep 1.1
  done
  name=$prefix-prune-a  # the oldest, used last
  "$P" jail exec "$name" -- true >/dev/null 2>&1
  "$P" jail prune --older-than 1d >/dev/null 2>&1 || fail "prune --older-than"
  "$P" jail show "$name" --json >/dev/null 2>&1 && ok || fail "prune --older-than 1d removed a fresh jail"
  "$P" jail list --json >"$work/list" && grep -q "\"name\": \"$name\"" "$work/list" && ok || fail "list --json"
  before=$("$P" jail list | grep -c "^$prefix" || true)
  size=$("$P" jail show "$name" --json | sed -n 's/^  "size_bytes": \([0-9]*\),*$/\1/p')
  "$P" jail prune --max-size "$((size + 4096))" >/dev/null 2>"$work/err" || fail "prune --max-size: $(cat "$work/err")"
  after=$("$P" jail list | grep -c "^$prefix" || true)
  "$P" jail show "$name" --json >/dev/null 2>&1 && ok || fail "prune --max-size removed the most recently used jail"
  [ "$before" = 3 ] && [ "$after" = 1 ] && ok || fail "prune --max-size: $before -> $after jails, want 3 -> 1"
  unset PADDOCK_JAILS_DIR

  echo "jail tests ($(id -un)): $checks checks, $failures failures"
  [ "$failures" = 0 ]
  exit $?
fi

# ---- Outer: as root, or drop to the unprivileged test user. ----
command -v git >/dev/null || { echo "SKIPPED: git is not installed"; exit 77; }
case "$who" in
  current) exec "$0" __inner "$paddock_bin" ;;
  root)
    if [ "$(id -u)" != 0 ]; then echo "SKIPPED: the root run needs root (running as $(id -un))"; exit 77; fi
    exec "$0" __inner "$paddock_bin"
    ;;
  unprivileged)
    if [ "$(id -u)" != 0 ]; then exec "$0" __inner "$paddock_bin"; fi
    user=${PADDOCK_TEST_USER:-paddock-test}
    if ! id "$user" >/dev/null 2>&1; then
      echo "the unprivileged test user '$user' does not exist: run scripts/test-user.sh" >&2
      exit 1
    fi
    uid=$(id -u "$user") gid=$(id -g "$user")
    drop=(setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --bounding-set=-all)
    bindir=$(mktemp -d /tmp/paddock-jailtest.XXXXXX)
    home=$(mktemp -d /tmp/paddock-jailhome.XXXXXX)
    trap 'rm -rf "$bindir" "$home"' EXIT
    cp "$paddock_bin" "$bindir/paddock"
    cp "$0" "$bindir/run.sh"
    chmod -R a+rX "$bindir"
    chown "$uid:$gid" "$home"
    "${drop[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$user" LOGNAME="$user" TMPDIR=/tmp \
      SHELL=/bin/sh "$bindir/run.sh" __inner "$bindir/paddock"
    ;;
  *) echo "usage: run.sh root|unprivileged|current PADDOCK_BINARY" >&2; exit 2 ;;
esac
