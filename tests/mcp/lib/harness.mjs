// Starts `paddock mcp` under the official MCP TypeScript SDK client (stdio or Streamable HTTP).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const PADDOCK = process.env.PADDOCK_BIN;
if (!PADDOCK) throw new Error('set PADDOCK_BIN to the paddock binary (tests/mcp/run.sh does)');

// Small limits so that bombs and floods end quickly.
export const TEST_CONFIG = `
[defaults]
timeout_seconds = 10
memory_mb = 128
max_output_bytes = 65536
pids = 32
warm = 1
session_idle_seconds = 60

`;

export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function writeConfig(text = TEST_CONFIG) {
  const dir = tempDir('paddock-mcp-cfg-');
  const file = path.join(dir, 'mcp.toml');
  fs.writeFileSync(file, text);
  return file;
}

export async function connectStdio(extraArgs = [], config = writeConfig()) {
  const transport = new StdioClientTransport({
    command: PADDOCK,
    args: ['mcp', '--config', config, ...extraArgs],
    stderr: 'inherit',
  });
  const client = new Client({ name: 'paddock-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// Starts `paddock mcp --http 127.0.0.1:0`-style on a free port and connects to it.
export async function startHttp(extraArgs = [], config = writeConfig()) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(PADDOCK, ['mcp', '--config', config, '--http', `127.0.0.1:${port}`, ...extraArgs], {
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      process.stderr.write(d);
      if (err.includes('serving MCP')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`paddock mcp --http exited with ${code}: ${err}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

export async function connectHttp(url) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'paddock-tests-http', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

export async function execute(client, args, options) {
  return client.callTool({ name: 'execute', arguments: args }, undefined, options);
}

export function text(result) {
  return result.content.map((c) => c.text ?? '').join('');
}
