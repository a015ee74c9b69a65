#!/usr/bin/env bash
# Installs the real agents the agents tests run inside paddock (Claude Code, Codex, pi) from the
# npm registry, exactly as pinned in tests/agents/package-lock.json. About 1 GB (native binaries).
set -euo pipefail
cd "$(dirname "$0")/../../tests/agents"
if ! command -v npm >/dev/null; then
  echo "agents tests: npm not found; the agents.* tests will be skipped (exit 77)" >&2
  exit 0
fi
# Already installed at the pinned versions: nothing to do (npm ci would delete and download ~1 GB).
if node -e '
  const lock = require("./package-lock.json").packages;
  for (const p of ["@anthropic-ai/claude-code", "@openai/codex", "@mariozechner/pi-coding-agent"]) {
    if (require(`./node_modules/${p}/package.json`).version !== lock[`node_modules/${p}`].version) process.exit(1);
  }' 2>/dev/null; then
  echo "agents tests: node_modules already holds the pinned agents"
  exit 0
fi
# Claude Code 2.1.x declares node >= 22 but runs its native binary; the warning is expected on 20.
npm ci --no-audit --no-fund --loglevel=error
