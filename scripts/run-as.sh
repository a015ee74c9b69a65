#!/usr/bin/env bash
# Runs a kernel test binary as root or as the unprivileged test user, the way users run paddock.
# usage: run-as.sh root|unprivileged TEST_BINARY PADDOCK_BINARY PROBE_BINARY [gtest args...]
# The binaries are copied to a fresh directory any user can read, so a checkout under /root works;
# it is removed at exit (never `exec` the test: the trap would not run, and each run would leave
# a copy of the binaries, a few hundred MB, in /tmp).
# Exit 77 means skipped (ctest's SKIP_RETURN_CODE for these tests).
set -euo pipefail
who=$1 test_bin=$2 paddock_bin=$3 probe_bin=$4
shift 4
user=${PADDOCK_TEST_USER:-paddock-test}

bindir=$(mktemp -d /tmp/paddock-testbin.XXXXXX)
trap 'rm -rf "$bindir"' EXIT
cp "$test_bin" "$bindir/tests"
cp "$paddock_bin" "$bindir/paddock"
cp "$probe_bin" "$bindir/paddock-probe"
chmod 755 "$bindir" "$bindir"/*

export PADDOCK_BIN="$bindir/paddock" PADDOCK_PROBE="$bindir/paddock-probe"
case "$who" in
  root)
    if [ "$(id -u)" != 0 ]; then
      # 77: ctest's SKIP_RETURN_CODE (tests/CMakeLists.txt), so a skip is reported as one.
      echo "SKIPPED: the root run needs root (running as $(id -un))"
      exit 77
    fi
    export PADDOCK_TEST_AS=root
    rc=0
    "$bindir/tests" "$@" || rc=$?
    exit $rc
    ;;
  unprivileged)
    export PADDOCK_TEST_AS=unprivileged
    if [ "$(id -u)" != 0 ]; then
      rc=0
      "$bindir/tests" "$@" || rc=$?
      exit $rc
    fi
    if ! id "$user" >/dev/null 2>&1; then
      echo "the unprivileged test user '$user' does not exist: run scripts/test-user.sh (scripts/test.sh does)" >&2
      exit 1
    fi
    uid=$(id -u "$user") gid=$(id -g "$user")
    home=$(mktemp -d /tmp/paddock-testhome.XXXXXX)
    chown "$uid:$gid" "$home"
    trap 'rm -rf "$bindir" "$home"' EXIT
    # setpriv (util-linux) drops to the user with no capabilities and no supplementary groups.
    setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --bounding-set=-all \
      env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$user" LOGNAME="$user" \
      PADDOCK_BIN="$PADDOCK_BIN" PADDOCK_PROBE="$PADDOCK_PROBE" PADDOCK_TEST_AS=unprivileged \
      TMPDIR=/tmp "$bindir/tests" "$@"
    ;;
  *) echo "usage: run-as.sh root|unprivileged ..." >&2; exit 2 ;;
esac
