#!/usr/bin/env bash
# Creates the unprivileged user the kernel tests run as (no password, no sudo, no groups).
set -euo pipefail
user=${PADDOCK_TEST_USER:-paddock-test}
if [ "$(id -u)" != 0 ]; then echo "test-user.sh: needs root to create '$user'" >&2; exit 1; fi
if ! id "$user" >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin --home-dir /nonexistent "$user"
fi
id "$user"
