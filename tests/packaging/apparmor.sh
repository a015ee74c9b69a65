#!/usr/bin/env bash
# packaging.apparmor: scripts/install.sh writes the AppArmor profile for the binary's real path,
# idempotently, and apparmor_parser accepts it (parse only: -Q -K, no kernel, no AppArmor needed).
# usage: apparmor.sh PADDOCK_BINARY. Exit 77 (ctest's skip) without apparmor_parser.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/paddock-aa.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/real" && ln -s real "$tmp/bin"

# Where AppArmor is off, the plain install puts the binary in place and no profile anywhere.
if [ ! -d /sys/kernel/security/apparmor ]; then
  plain=$("$src/scripts/install.sh" --binary "$1" --prefix "$tmp/plain")
  case "$plain" in *"AppArmor is not enabled here: no profile needed"*) ;;
    *) echo "FAIL: install.sh without AppArmor said:"; echo "$plain"; exit 1 ;; esac
  cmp -s "$1" "$tmp/plain/paddock" || { echo "FAIL: the binary was not installed"; exit 1; }
fi

run_install() { "$src/scripts/install.sh" --binary "$1" --prefix "$tmp/bin" --apparmor-dir "$tmp/apparmor.d" --no-load; }
out=$(run_install "$1")
profile=$tmp/apparmor.d/paddock
# The attachment is the resolved path (through the bin -> real symlink), not the prefix as given.
want="profile paddock $tmp/real/paddock flags=(unconfined) {"
grep -qxF "$want" "$profile" || { echo "FAIL: no line '$want' in $profile:"; cat "$profile"; exit 1; }
grep -qxF "  userns," "$profile" || { echo "FAIL: the profile does not allow userns"; exit 1; }
# Idempotent: a second run changes nothing and says so.
again=$(run_install "$1")
case "$again" in *"is already this paddock"*"is already the profile for $tmp/real/paddock"*) ;;
  *) echo "FAIL: second install was not a no-op:"; echo "$again"; exit 1 ;; esac
# A path AppArmor would read as a pattern is refused.
mkdir "$tmp/we[ird]"
if "$src/scripts/install.sh" --binary "$1" --prefix "$tmp/we[ird]" --apparmor-dir "$tmp/aa2" --no-load 2>"$tmp/err"; then
  echo "FAIL: a pattern-like install path was accepted"; exit 1
fi
grep -q "would read as a pattern" "$tmp/err" || { echo "FAIL: unclear refusal:"; cat "$tmp/err"; exit 1; }

parser=$(command -v apparmor_parser || echo /sbin/apparmor_parser)
if [ ! -x "$parser" ]; then
  echo "SKIPPED: apparmor_parser is not installed (Debian: apt-get install apparmor); install.sh's checks passed"
  exit 77
fi
version=$("$parser" --version | sed -n '1s/.*version //p')
if "$parser" -Q -K "$profile" 2>"$tmp/parse.err"; then
  echo "PASS: apparmor_parser $version parses $profile"
  exit 0
fi
# AppArmor before 4.0 (Debian 12 ships 3.0.8) knows neither abi/4.0 nor the userns rule, which
# hosts that restrict user namespaces all have: parse everything else with it, and say so.
case "$version" in
  [0-3].*)
    sed -e 's|^abi <abi/4.0>,$|abi <abi/3.0>,|' -e '/^  userns,$/d' "$profile" >"$tmp/paddock-3"
    if "$parser" -Q -K "$tmp/paddock-3"; then
      echo "PASS (partial): apparmor_parser $version predates AppArmor 4.0's userns rule and abi/4.0;" \
           "the profile parses without those two lines"
      exit 0
    fi
    echo "FAIL: apparmor_parser $version rejects the profile even without the userns rule"
    exit 1
    ;;
esac
echo "FAIL: apparmor_parser $version rejects $profile:"
cat "$tmp/parse.err"
exit 1
