#!/usr/bin/env bash
# Installs the MCP test client (official @modelcontextprotocol/sdk and conformance suite) from
# the npm registry, exactly as pinned in tests/mcp/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/../../tests/mcp"
if ! command -v npm >/dev/null && [ "$(id -u)" = 0 ] && [ "${PADDOCK_NO_INSTALL:-0}" != 1 ]; then
  # A machine without Node.js: Debian's (18 on Debian 12; the SDK needs 18 or later).
  echo "mcp tests: installing nodejs and npm from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if ! command -v npm >/dev/null; then
  echo "mcp tests: npm not found; the mcp.sdk tests will be skipped (exit 77)" >&2
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
