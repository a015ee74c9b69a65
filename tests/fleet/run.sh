#!/usr/bin/env bash
# The fleet test (tests/mcp/fleet.test.mjs): three workers behind HAProxy, the official SDK
# client, promtool on /metrics. Exit 77 (skipped, with the reason) without haproxy, promtool or
# node (scripts/test-setup.d/fleet.sh and mcp.sh install them).
# usage: tests/fleet/run.sh PADDOCK_BINARY
set -euo pipefail
for tool in haproxy promtool node; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIPPED: $tool is not installed (scripts/test-setup.d/fleet.sh installs haproxy and prometheus)"
    exit 77
  fi
done
exec "$(dirname "$0")/../mcp/run.sh" current "$1" fleet.test.mjs
