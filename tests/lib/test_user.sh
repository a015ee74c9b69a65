# Sourced by tests/mcp/run.sh and tests/agents/run.sh: running a node test tree as the
# unprivileged test user (scripts/test-user.sh creates it), the way users run paddock.
#
# test_user_setup HERE BINDIR PROBE: sets user, uid, gid, drop (a setpriv prefix that becomes that
# user with no capabilities) and testdir: HERE, or a copy under BINDIR when the user cannot read
# HERE/PROBE or enter HERE/node_modules (a checkout under /root).
test_user_setup() {
  local here=$1 bindir=$2 probe=$3
  user=${PADDOCK_TEST_USER:-paddock-test}
  if ! id "$user" >/dev/null 2>&1; then
    echo "the unprivileged test user '$user' does not exist: run scripts/test-user.sh" >&2
    exit 1
  fi
  uid=$(id -u "$user") gid=$(id -g "$user")
  drop=(setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --bounding-set=-all)
  testdir=$here
  if ! "${drop[@]}" test -r "$here/$probe" -a -x "$here/node_modules"; then
    cp -r "$here" "$bindir/tests"
    chmod -R a+rX "$bindir/tests"
    testdir=$bindir/tests
  fi
}
