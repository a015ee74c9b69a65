#!/usr/bin/env bash
# Builds paddock's Debian package with Debian's own tools (dpkg-buildpackage, debhelper) from this
# tree as git sees it — tracked files and untracked ones not ignored, nothing of build/ — and
# checks it with lintian. docs/packaging.md says what the package holds.
#
# usage: scripts/package.sh [--out DIR] [--no-lintian]
#   --out DIR      where paddock_*.deb, paddock-dbgsym_*.deb, .buildinfo and .changes go
#                  (default build/deb); the tree is copied to DIR/src and built there
#   --no-lintian   skip lintian (it runs by default and any error or warning fails the build)
#
# Installs nothing: missing build tools and build dependencies are named, with the apt-get line.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$src/build/deb
lint=1
die() { echo "package.sh: error: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --no-lintian) lint=0; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done

need=()
command -v dpkg-buildpackage >/dev/null || need+=(dpkg-dev)
command -v dh >/dev/null || need+=(debhelper)
[ "$lint" = 0 ] || command -v lintian >/dev/null || need+=(lintian)
[ ${#need[@]} -eq 0 ] || die "missing ${need[*]} (apt-get install ${need[*]})"

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$out/src
tree=$work/paddock-$version
rm -rf "$work"
mkdir -p "$tree"
rm -f "$out"/paddock_* "$out"/paddock-dbgsym_*

# The tree as git sees it; without git (a tarball), everything but build directories.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -xf - -C "$tree"
  commit=$(git -C "$src" rev-parse --short=12 HEAD)
  if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then commit=$commit-dirty; fi
else
  (cd "$src" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -xf - -C "$tree"
  commit=unknown
fi

if ! (cd "$tree" && dpkg-checkbuilddeps) 2>"$work/deps"; then
  missing=$(sed -n 's/.*Unmet build dependencies: //p' "$work/deps" | sed 's/([^)]*)//g')
  die "missing build dependencies: $missing (apt-get install $missing)"
fi

echo "package.sh: building paddock $version (commit $commit) in $tree"
jobs=$(nproc)
# Where ccache is installed (a developer's machine; not CI's), the compiler goes through it: the
# package's objects are the same, and a second package build of the same tree takes seconds
# instead of a full compile (CMake reads these at configure time).
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
(cd "$tree" && PADDOCK_COMMIT=$commit DEB_BUILD_OPTIONS="parallel=$jobs ${DEB_BUILD_OPTIONS:-}" \
   dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1 || {
  tail -40 "$work/build.log" >&2
  die "dpkg-buildpackage failed (the whole log: $work/build.log)"
}
mv "$work"/paddock_* "$work"/paddock-dbgsym_* "$out"/
changes=$(ls "$out"/paddock_"$version"_*.changes)
deb=$(ls "$out"/paddock_"$version"_*.deb)
echo "package.sh: $deb ($(du -h "$deb" | cut -f1)), $(ls "$out"/paddock-dbgsym_*)"

if [ "$lint" = 1 ]; then
  # Every error and warning fails; overrides are in debian/paddock.lintian-overrides, each with why.
  lintian --fail-on error,warning --display-info --tag-display-limit 0 "$changes" | tee "$out/lintian.log"
  echo "package.sh: lintian $(lintian --version | awk '{print $2}'): no error or warning"
fi
