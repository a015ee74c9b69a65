#!/usr/bin/env bash
# The Python package's tests (pytest, python3-pytest from Debian) against LIBRARY (a built
# libpaddock.so), from the source tree's python/. Exit 77 (a skip) when no python3 here has pytest.
# usage: python/tests/run.sh LIBRARY [pytest args...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$1
shift
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import pytest' 2>/dev/null; then
    export PADDOCK_LIBRARY=$lib PYTHONPATH=$here/..${PYTHONPATH:+:$PYTHONPATH}
    exec "$py" -m pytest -q -p no:cacheprovider "$here" "$@"
  fi
done
echo "SKIPPED: no python3 with pytest (scripts/setup.sh installs python3-pytest)"
exit 77
