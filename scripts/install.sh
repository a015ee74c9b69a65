#!/usr/bin/env bash
# Installs paddock, and where AppArmor restricts unprivileged user namespaces (Ubuntu 23.10 and
# later) the AppArmor profile that gives them back to it (packaging/apparmor/paddock), loaded at
# once. Idempotent: what is already in place is left as it is and said so.
#
# usage: scripts/install.sh [--prefix DIR] [--binary PATH] [--profile-only]
#                           [--apparmor-dir DIR] [--no-load]
#   --prefix DIR        where the binary goes (default /usr/local/bin)
#   --binary PATH       the paddock to install (default build/paddock of this checkout)
#   --profile-only      install no binary: the profile for DIR/paddock as it is
#   --apparmor-dir DIR  write the profile there even where AppArmor is off (packaging, tests);
#                       default /etc/apparmor.d, only where AppArmor restricts user namespaces
#   --no-load           write the profile but do not load it into the kernel
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
prefix=/usr/local/bin
binary=$src/build/paddock
profile_only=0
aa_dir=/etc/apparmor.d
aa_forced=0
load=1

say() { echo "install.sh: $*"; }
die() { echo "install.sh: error: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --binary) binary=${2:?--binary needs a path}; shift 2 ;;
    --profile-only) profile_only=1; shift ;;
    --apparmor-dir) aa_dir=${2:?--apparmor-dir needs a directory}; aa_forced=1; shift 2 ;;
    --no-load) load=0; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

target=$prefix/paddock
if [ "$profile_only" = 0 ]; then
  [ -x "$binary" ] || die "$binary is not an executable (build first: scripts/setup.sh, or give --binary)"
  mkdir -p "$prefix" 2>/dev/null || die "cannot create $prefix (run with sudo?)"
  if [ -e "$target" ] && cmp -s "$binary" "$target"; then
    say "$target is already this paddock"
  else
    install -m 0755 "$binary" "$target.tmp.$$" 2>/dev/null || die "cannot write to $prefix (run with sudo?)"
    mv -f "$target.tmp.$$" "$target"
    say "installed $target"
  fi
fi
[ -e "$target" ] || die "$target does not exist: nothing to write a profile for"

# --- AppArmor ---------------------------------------------------------------------------------
aa_enabled() {
  [ -d /sys/kernel/security/apparmor ] && return 0
  command -v aa-enabled >/dev/null 2>&1 && aa-enabled -q 2>/dev/null
}
if [ "$aa_forced" = 0 ]; then
  if ! aa_enabled; then
    say "AppArmor is not enabled here: no profile needed"
    exit 0
  fi
  if [ ! -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then
    say "this kernel's AppArmor does not restrict user namespaces: no profile needed"
    exit 0
  fi
fi

# AppArmor attaches a profile to the executable's resolved path; the path is a glob there, so a
# name with glob or quoting characters would attach to something else: refused, not escaped.
real=$(readlink -f "$target")
case "$real" in
  *[!A-Za-z0-9._/+-]*) die "$real holds characters an AppArmor attachment would read as a pattern; install to a plain path" ;;
esac

profile_src=$src/packaging/apparmor/paddock
[ -f "$profile_src" ] || die "$profile_src is missing"
grep -q '^profile paddock /usr/local/bin/paddock flags=(unconfined) {$' "$profile_src" ||
  die "$profile_src has no 'profile paddock /usr/local/bin/paddock' line to substitute"
content=$(sed "s|^profile paddock /usr/local/bin/paddock |profile paddock $real |" "$profile_src")
dest=$aa_dir/paddock
mkdir -p "$aa_dir" 2>/dev/null || die "cannot create $aa_dir (run with sudo?)"
if [ -f "$dest" ] && [ "$(cat "$dest")" = "$content" ]; then
  say "$dest is already the profile for $real"
else
  printf '%s\n' "$content" > "$dest.tmp.$$" 2>/dev/null || die "cannot write to $aa_dir (run with sudo?)"
  chmod 0644 "$dest.tmp.$$"
  mv -f "$dest.tmp.$$" "$dest"
  say "wrote $dest (profile paddock for $real)"
fi

[ "$load" = 1 ] || { say "not loaded (--no-load)"; exit 0; }
parser=$(command -v apparmor_parser || true)
[ -n "$parser" ] || { [ -x /sbin/apparmor_parser ] && parser=/sbin/apparmor_parser; } ||
  die "apparmor_parser not found: install the apparmor package, then run: sudo apparmor_parser -r $dest"
"$parser" -r "$dest" || die "apparmor_parser could not load $dest (AppArmor 4.0 or later is needed for its userns rule)"
say "loaded $dest: paddock may create user namespaces; \`paddock doctor\` shows it"
