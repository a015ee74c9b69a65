#!/usr/bin/env bash
# The examples built against the INSTALLED library (ctest examples.installed): `cmake --install`
# into a temporary prefix, then hello.c compiled with pkg-config and again with find_package,
# and hello.py with the installed Python package; each runs in a throwaway project and HOME.
# usage: examples/run.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d /tmp/paddock-examples.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir=$(dirname "$(find "$prefix" -name libpaddock.so -print -quit)")
pydir=$(dirname "$(find "$prefix" -path '*/paddock/__init__.py' -print -quit)")/..
test -f "$libdir/pkgconfig/paddock.pc" || { echo "no paddock.pc in $libdir/pkgconfig"; exit 1; }

# A world of its own: HOME, paddock's state, the project.
mkdir -p "$work/home/proj"
export HOME=$work/home XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
unset PADDOCK_LIBRARY PADDOCK_JAILS_DIR

flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs paddock)
cc -std=c11 -Wall -Werror "$here/hello.c" $flags -Wl,-rpath,"$libdir" -o "$work/hello-pkgconfig"
cmake -S "$here" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$work/cmake.log"
cmake --build "$work/cmake" >>"$work/cmake.log"
# Nothing of the build tree is used: the library each program loads is the installed one.
for prog in "$work/hello-pkgconfig" "$work/cmake/hello"; do
  ldd "$prog" | grep -q "$libdir/libpaddock.so" || { echo "$prog does not load the installed library"; ldd "$prog"; exit 1; }
  (cd "$work/home/proj" && "$prog")
done
py=
for p in python3 /usr/bin/python3; do command -v "$p" >/dev/null && py=$p && break; done
(cd "$work/home/proj" && PYTHONPATH=$pydir "$py" "$here/hello.py")
echo "examples: C (pkg-config, find_package) and Python against $prefix: ok"
