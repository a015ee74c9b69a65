#!/usr/bin/env bash
# Installs the MCP test client (official @modelcontextprotocol/sdk and conformance suite) from
# the npm registry, exactly as pinned in tests/mcp/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/../../tests/mcp"
if ! command -v npm >/dev/null; then
  echo "mcp tests: npm not found; the mcp.sdk tests will fail" >&2
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
