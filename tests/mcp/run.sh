#!/usr/bin/env bash
# Runs the MCP client tests (official SDK client, node --test) against a paddock binary, as root
# or as the unprivileged test user (scripts/test-user.sh creates it), the way users run paddock.
# usage: tests/mcp/run.sh root|unprivileged|current PADDOCK_BINARY [test files...]
# Needs tests/mcp/node_modules: scripts/test-setup.d/mcp.sh runs `npm ci` there.
set -euo pipefail
who=$1 paddock_bin=$2
shift 2
# Exit 77 means skipped (ctest's SKIP_RETURN_CODE for these tests), always with the reason.
if ! command -v node >/dev/null 2>&1; then
  echo "SKIPPED: node is not installed (scripts/test-setup.d/mcp.sh installs Debian's nodejs), so the MCP SDK client tests cannot run"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
user=${PADDOCK_TEST_USER:-paddock-test}
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "tests/mcp/node_modules is missing: run scripts/test-setup.d/mcp.sh (npm ci)" >&2
  exit 1
fi
files=("$@")
if [ ${#files[@]} -eq 0 ]; then files=(sdk_stdio.test.mjs sdk_http.test.mjs sdk_sessions.test.mjs); fi

bindir=$(mktemp -d /tmp/paddock-mcptest.XXXXXX)
trap 'rm -rf "$bindir"' EXIT
cp "$paddock_bin" "$bindir/paddock"
chmod 755 "$bindir" "$bindir/paddock"

case "$who" in
  current)
    cd "$here"
    PADDOCK_BIN="$bindir/paddock" node --test --test-concurrency=1 "${files[@]}"
    ;;
  root)
    if [ "$(id -u)" != 0 ]; then
      echo "SKIPPED: the root run needs root (running as $(id -un))"
      exit 77
    fi
    cd "$here"
    PADDOCK_BIN="$bindir/paddock" node --test --test-concurrency=1 "${files[@]}"
    ;;
  unprivileged)
    if [ "$(id -u)" != 0 ]; then
      cd "$here"
      PADDOCK_BIN="$bindir/paddock" node --test --test-concurrency=1 "${files[@]}"
      exit
    fi
    . "$here/../lib/test_user.sh"
    test_user_setup "$here" "$bindir" lib/harness.mjs
    home=$(mktemp -d /tmp/paddock-testhome.XXXXXX)
    chown "$uid:$gid" "$home"
    trap 'rm -rf "$bindir" "$home"' EXIT
    cd "$testdir"
    "${drop[@]}" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$user" LOGNAME="$user" \
      TMPDIR=/tmp PADDOCK_BIN="$bindir/paddock" node --test --test-concurrency=1 "${files[@]}"
    ;;
  *) echo "usage: run.sh root|unprivileged|current PADDOCK_BINARY [test files...]" >&2; exit 2 ;;
esac
