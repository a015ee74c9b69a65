#!/usr/bin/env bash
# Installs, builds and runs the whole test suite: unit tests, then kernel tests (integration and
# escape) as root and as an unprivileged user, then the MCP client tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "$(id -u)" = 0 ]; then scripts/test-user.sh >/dev/null; fi
for extra in scripts/test-setup.d/*.sh; do
  [ -e "$extra" ] && bash "$extra"
done
cd build
ctest --output-on-failure --timeout 1200 "$@"
