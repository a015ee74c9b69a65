#!/usr/bin/env bash
# packaging.deb: the Debian package as a user gets it (issue 32). scripts/package.sh builds it
# with dpkg-buildpackage and checks it with lintian; a clean Debian 12 root is made from Debian's
# mirror with mmdebstrap (kept in BUILD_DIR/deb for a week, so a re-run costs no download); the
# package goes in with apt, and inside that root — entered with its own mount and pid namespaces
# and pivot_root, not chroot, so paddock can make user namespaces there — `paddock doctor` and
# `paddock run` work as root and as a user, `man paddock-run` and bash's completion work from the
# installed files, the binary is stripped with its debug symbols in paddock-dbgsym, and `apt purge`
# leaves nothing of paddock's but the users' state, which it names.
#
# usage: deb.sh BUILD_DIR [--reuse]   exit 77 (a skip, with the reason) without root, without the
#                                      Debian tools, or when Debian's mirror cannot be reached.
#   --reuse  test the package already in BUILD_DIR/deb instead of building it (while working on
#            this test; ctest always builds)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: deb.sh BUILD_DIR [--reuse]}" && pwd)
reuse=${2:-}
skip() { echo "SKIPPED: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "making and entering a root needs root"
for t in dpkg-buildpackage dh lintian mmdebstrap unshare pivot_root readelf; do
  command -v "$t" >/dev/null || skip "$t is not installed (scripts/test-setup.d/packaging.sh installs what this needs)"
done
out=$build/deb
work=$(mktemp -d /tmp/paddock-deb.XXXXXX)
trap 'umount -R "$work/root" 2>/dev/null || true; rm -rf "$work"' EXIT
failures=0 checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  checks=$((checks + 1))
  "$@" || fail "$what"
}

# --- the package, and lintian ------------------------------------------------------------------
t0=$(date +%s)
if [ "$reuse" != --reuse ]; then
  "$src/scripts/package.sh" --out "$out" || { echo "FAIL: scripts/package.sh"; exit 1; }
fi
t1=$(date +%s)
deb=$(ls "$out"/paddock_*.deb)
dbgsym=$(ls "$out"/paddock-dbgsym_*.deb)

# --- a clean root from Debian's mirror ---------------------------------------------------------
tarball=$out/root-bookworm.tar
if [ ! -s "$tarball" ] || [ -n "$(find "$tarball" -mtime +7)" ]; then
  if ! mmdebstrap --variant=apt --mode=root --format=tar --include=man-db,bash-completion,less \
       bookworm "$tarball.tmp" http://deb.debian.org/debian >"$work/mmdebstrap.log" 2>&1; then
    tail -5 "$work/mmdebstrap.log"
    rm -f "$tarball.tmp"
    skip "mmdebstrap could not make a Debian 12 root from http://deb.debian.org/debian (above)"
  fi
  mv "$tarball.tmp" "$tarball"
fi
t2=$(date +%s)
root=$work/root
mkdir "$root"
tar -xf "$tarball" -C "$root"
cp "$deb" "$dbgsym" "$root/tmp/"
# A user of the root, as useradd would make it (the root has no passwd package).
echo "user:x:1000:1000::/home/user:/bin/bash" >>"$root/etc/passwd"
echo "user:x:1000:" >>"$root/etc/group"
echo "user:!:19000::::::" >>"$root/etc/shadow"
mkdir -p "$root/home/user" && chown 1000:1000 "$root/home/user"

# in_root [--user] COMMAND...: run in the root, in its own mount and pid namespaces, with the root
# pivoted to (a chroot would keep paddock from making user namespaces).
# With --fake-apparmor the root sees an AppArmor that restricts user namespaces (this kernel's may
# not): a securityfs with apparmor/ and the sysctl, on tmpfs, in this namespace only.
in_root() {
  local as=root aa=0
  if [ "$1" = --user ]; then as=user; shift; fi
  if [ "$1" = --fake-apparmor ]; then aa=1; shift; fi
  unshare --mount --pid --fork --propagation private -- /bin/sh -e -c '
    r=$1; as=$2; aa=$3; shift 3
    mount --bind "$r" "$r"
    mount -t proc proc "$r/proc"
    mount --rbind /dev "$r/dev"
    mount --rbind /sys "$r/sys"
    mount -t tmpfs -o mode=1777 tmpfs "$r/run"
    if [ "$aa" = 1 ]; then
      mount -t tmpfs tmpfs "$r/sys/kernel/security" && mkdir "$r/sys/kernel/security/apparmor"
      mount -t tmpfs tmpfs "$r/proc/sys/kernel" && echo 1 >"$r/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
    fi
    cd "$r"
    mkdir -p .oldroot
    pivot_root . .oldroot
    cd /
    /.oldroot/usr/bin/umount -l /.oldroot
    rmdir /.oldroot
    if [ "$as" = user ]; then
      exec setpriv --reuid=1000 --regid=1000 --clear-groups \
        env -i HOME=/home/user USER=user PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb sh -c "cd && exec \"\$@\"" sh "$@"
    fi
    exec env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb \
      sh -c "cd && exec \"\$@\"" sh "$@"
  ' sh "$root" "$as" "$aa" "$@"
}

# What the root holds besides what changes by itself (logs, caches, dpkg's and apt's records).
snapshot() {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./sys -o -path ./run -o -path ./tmp \
     -o -path ./var/log -o -path ./var/cache -o -path ./var/lib/dpkg -o -path ./var/lib/apt \) -prune \
     -o -print | sort)
}
mkdir -p "$root/root/.ssh" "$root/root/proj" "$root/home/user/proj"
echo secret >"$root/root/.ssh/id_ed25519"
chown 1000:1000 "$root/home/user/proj"
snapshot >"$work/before"

# --- install -----------------------------------------------------------------------------------
check "apt-get install of the package" in_root sh -c 'apt-get install -y /tmp/paddock_*.deb /tmp/paddock-dbgsym_*.deb >/tmp/install.log 2>&1 || { cat /tmp/install.log; exit 1; }'
check "paddock --version names the commit" in_root sh -c 'paddock --version | grep -Eq "^paddock [0-9.]+ \(commit [0-9a-f]{12}(-dirty)?, RelWithDebInfo\)$"'

# Stripped, with its debug symbols where gdb finds them by build id.
bin=$root/usr/bin/paddock
size=$(stat -c %s "$bin")
checks=$((checks + 1))
if readelf -S "$bin" | grep -q '\.debug_info'; then fail "/usr/bin/paddock still has .debug_info"; fi
checks=$((checks + 1))
[ "$size" -lt 30000000 ] || fail "/usr/bin/paddock is $size bytes: not stripped"
id=$(readelf -n "$bin" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
checks=$((checks + 1))
[ -n "$id" ] && [ -s "$root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] ||
  fail "no /usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug from paddock-dbgsym"

for f in usr/share/man/man1/paddock.1.gz usr/share/man/man1/paddock-run.1.gz usr/share/man/man1/paddock-jail.1.gz \
         usr/share/man/man5/paddock-profile.5.gz usr/share/bash-completion/completions/paddock \
         usr/share/zsh/vendor-completions/_paddock usr/share/fish/vendor_completions.d/paddock.fish \
         usr/lib/tmpfiles.d/paddock.conf usr/share/paddock/apparmor/paddock usr/share/doc/paddock/README.md.gz \
         usr/share/doc/paddock/copyright; do
  check "the package installs /$f" test -e "$root/$f"
done
# No AppArmor restriction of user namespaces here: the profile stays where nothing loads it.
check "no /etc/apparmor.d/paddock where AppArmor does not restrict user namespaces" test ! -e "$root/etc/apparmor.d/paddock"

# --- paddock in the root -------------------------------------------------------------------------
check "paddock doctor (root)" in_root sh -c 'paddock doctor >/tmp/doctor.txt && grep -q "^paddock doctor" /tmp/doctor.txt'
check "paddock doctor (user)" in_root --user sh -c 'paddock doctor | grep -q "paddock run. will use"'
for who in root user; do
  flag=; [ $who = user ] && flag=--user
  check "paddock run writes the project ($who)" in_root $flag sh -c 'cd proj && paddock run -- sh -c "echo made >made.txt" 2>/dev/null && grep -qx made made.txt'
  check "paddock run keeps ~/.ssh out ($who)" in_root $flag sh -c 'mkdir -p .ssh && echo s >.ssh/k; cd proj && ! paddock run -- cat ~/.ssh/k >/dev/null 2>&1'
done
check "man paddock-run" in_root sh -c 'MANPAGER=cat MANWIDTH=100 man paddock-run 2>/dev/null | grep -q -- "--allow PATH"'
check "man 5 paddock-profile" in_root sh -c 'MANPAGER=cat man 5 paddock-profile 2>/dev/null | grep -q "require_namespaces"'
check "paddock completion bash" in_root sh -c 'paddock completion bash | bash -n'
# bash-completion loads the installed script on first use, as in an interactive shell.
check "bash completes paddock from the installed script" in_root bash -c '
  . /usr/share/bash-completion/bash_completion
  _completion_loader paddock
  COMP_WORDS=(paddock jail cr); COMP_CWORD=2; COMPREPLY=()
  _paddock
  [ "${COMPREPLY[*]}" = create ]'

# --- purge ---------------------------------------------------------------------------------------
check "apt-get purge" in_root sh -c 'apt-get purge -y paddock paddock-dbgsym >/tmp/purge.log 2>&1 || { cat /tmp/purge.log; exit 1; }'
snapshot >"$work/after"
comm -13 "$work/before" "$work/after" >"$work/left"
# Only users' state may stay, and purge names each directory of it.
purge_said=$(cat "$root/tmp/purge.log")
named() {
  grep -qF -- "$1" <<<"$purge_said" || fail "purge left $1 and did not name it: $purge_said"
}
while IFS= read -r p; do
  p=${p#.}
  case "$p" in
    /root/proj/*|/home/user/proj/*|/root/.ssh/*|/home/user/.ssh|/home/user/.ssh/*) ;;  # this test's files
    /root/.local|/root/.local/state|/home/user/.local|/home/user/.local/state) ;;
    /root/.local/state/paddock) named "$p" ;;
    /home/user/.local/state/paddock) named "$p" ;;
    /root/.local/state/paddock/*|/home/user/.local/state/paddock/*) ;;
    *) fail "purge left $p" ;;
  esac
done <"$work/left"

# --- AppArmor where it restricts user namespaces ------------------------------------------------
# This kernel's AppArmor is off, so the root is shown one that restricts user namespaces, and an
# apparmor_parser stand-in records what the maintainer scripts ask of it: reading the profile
# (-Q -K, refused when /tmp/aa-too-old exists, as Debian 12's AppArmor 3.0 does), loading (-r)
# and unloading (-R) it.
# (In /usr/sbin: apt runs dpkg with PATH=/usr/sbin:/usr/bin:/sbin:/bin; the root has no apparmor.)
cat >"$root/usr/sbin/apparmor_parser" <<'PARSER'
#!/bin/sh
echo "$*" >>/tmp/aa.log
if [ "$1" = -Q ] && [ -e /tmp/aa-too-old ]; then exit 1; fi
exit 0
PARSER
chmod 755 "$root/usr/sbin/apparmor_parser"
aa=$root/etc/apparmor.d/paddock
mkdir -p "$root/etc/apparmor.d"
install_pkg() { in_root --fake-apparmor sh -c 'apt-get install -y /tmp/paddock_*.deb >/tmp/install.log 2>&1 || { cat /tmp/install.log; exit 1; }'; }
purge_pkg() { in_root --fake-apparmor sh -c 'apt-get purge -y paddock >/tmp/purge.log 2>&1 || { cat /tmp/purge.log; exit 1; }'; }

check "install where AppArmor restricts user namespaces" install_pkg
check "the profile is installed for /usr/bin/paddock" grep -qx 'profile paddock /usr/bin/paddock flags=(unconfined) {' "$aa"
check "the profile is loaded" grep -qx -- "-r -W /etc/apparmor.d/paddock" "$root/tmp/aa.log"
check "purge" purge_pkg
check "purge unloads the profile" grep -qx -- "-R /etc/apparmor.d/paddock" "$root/tmp/aa.log"
check "purge removes the profile" test ! -e "$aa"

touch "$root/tmp/aa-too-old"
check "install where apparmor_parser is too old" install_pkg
check "no profile an old apparmor_parser cannot read" test ! -e "$aa"
check "and it says so" grep -q "no apparmor_parser that reads paddock's profile" "$root/tmp/install.log"
check "purge" purge_pkg
rm -f "$root/tmp/aa-too-old"

printf 'profile paddock /usr/local/bin/paddock flags=(unconfined) {\n  userns,\n}\n' >"$aa"
cp "$aa" "$work/foreign"
check "install over a profile the package did not write" install_pkg
check "that profile is left as it was" cmp -s "$aa" "$work/foreign"
check "and it says so" grep -q "is not the package's: left as it is" "$root/tmp/install.log"
check "purge" purge_pkg
check "purge leaves that profile" cmp -s "$aa" "$work/foreign"

t3=$(date +%s)
echo "deb: package + lintian $((t1 - t0)) s, root $((t2 - t1)) s, install/run/purge $((t3 - t2)) s"
if [ "$failures" -gt 0 ]; then
  echo "deb: $failures of $checks checks failed"
  exit 1
fi
echo "deb: all $checks checks passed"
